import { AppError, coerceError, type Logger } from '@inntak/core';
import type { JsonObject } from '@inntak/graph';
import type { ActionInputs } from './actions.js';
import { evaluateCondition } from './conditions.js';
import { loadCliTool, runGraphAction } from './graph-actions.js';
import { sameRunner } from './manage.js';
import { requireNotOwnWebhook } from './own-webhooks.js';
import type { OrchestrationStore, RunContext, RunRef } from './ports.js';
import { ActionSkipped, runScript } from './runner.js';
import { parseScript } from './script.js';
import type { ActionPort, EventRef, RetryPoint, StepRecord } from './types.js';

/**
 * The actions that leave the service: an HTTP post and a command. The worker implements them
 * (apps/worker/src/orchestration-io.ts) with its allow lists bound; a test can stand in.
 */
export interface OutsideActions {
  httpPost(input: ActionInputs['http_post'], signal: AbortSignal): Promise<JsonObject>;
  runCliTool(tool: JsonObject, args: readonly string[], signal: AbortSignal): Promise<JsonObject>;
}

export interface OrchestrateDeps {
  /** Orchestration's port (ports.ts). */
  store: OrchestrationStore;
  outside: OutsideActions;
  /** ORCHESTRATION_BUDGET: actions and queued runs one root event's whole cascade may take. */
  budget: number;
  /** TTS_JOBS_PER_PERSON: generate_tts jobs the creator may have queued or running at once; absent: the default. */
  ttsJobsPerPerson?: number;
}

/** One run to make: the orchestrate job's payload (packages/jobs, payloads.ts). */
export interface OrchestrateRequest {
  orchestration_id: string;
  event: EventRef;
  /** The root event of the cascade; absent in jobs queued before 017. */
  root?: string;
  /** The run's row; absent in jobs queued before 023. */
  run_id?: string;
  /** A run queued again to wait for a step's retry. */
  retry?: RetryPoint;
}

/** What the job that carries the run brings: its id, its cancellation, its logger. */
export interface OrchestrateContext {
  signal: AbortSignal;
  logger: Logger;
  jobId: number;
}

/**
 * Runs an orchestration for one event (docs/orchestration.md): compiles its script, reads the
 * event as the orchestration's creator, and runs the steps as the creator. Step failures are the
 * script's business (fallbacks, the log), not the job's: the job fails only when the log itself
 * cannot be written.
 */
export async function orchestrateEvent(deps: OrchestrateDeps, payload: OrchestrateRequest, { signal, logger, jobId }: OrchestrateContext): Promise<void> {
  const { store } = deps;
  const { event: ref } = payload;
  const runRef: RunRef = { jobId, ...(payload.run_id ? { runId: payload.run_id } : {}) };
  const orchestration = await store.loadOrchestration(payload.orchestration_id);
  if (!orchestration) {
    logger.info('orchestration gone before its job ran', { orchestration_id: payload.orchestration_id, job_id: jobId });
    return;
  }
  const started = await store.startRun(runRef, orchestration.actor.personId);
  const record = (entry: StepRecord) => store.recordLogEntry({ orchestrationId: orchestration.id, jobId, event: ref, record: entry });
  const skip = async (error: string, status: 'failed' | 'skipped') => {
    await record({ step: null, action: null, fallback: null, status, error, duration_ms: 0 });
    await store.finishRun(runRef, { status });
  };
  if (!orchestration.enabled) {
    await skip('Ikke kjørt: orkestreringen er slått av', 'skipped');
    return;
  }
  // A re-run queued before someone else took the orchestration over gets none of the first run's outputs (manage.ts).
  if (started && 'rerunOfRunsAs' in started && !sameRunner(started.rerunOfRunsAs, orchestration.actor.personId)) {
    await skip('Ikke kjørt: kjøringen ble gjort som en annen enn den orkestreringen nå kjører som', 'skipped');
    return;
  }
  // So does a run that waited for a retry (queued again with its outputs so far) while someone
  // else took it over: its steps so far were its creator's (found attacking the merged result of issue 35).
  if (payload.retry && started && !sameRunner(started.previousRunsAs, orchestration.actor.personId)) {
    await skip('Ikke kjørt: kjøringen ble gjort som en annen enn den orkestreringen nå kjører som', 'skipped');
    return;
  }

  let script;
  try {
    script = parseScript(orchestration.script, { event: ref.type });
  } catch (error) {
    await skip(`Skriptet kan ikke kompileres: ${coerceError(error).message}`, 'failed');
    return;
  }
  const loaded = await store.loadEventVariables(orchestration.actor.personId, ref);
  if ('skipped' in loaded) {
    await skip(loaded.skipped, 'skipped');
    return;
  }
  // The trigger's conditions on content: a run they refuse ends as `filtered`, without a log row
  // (the runs list shows it), so an orchestration narrowed to failed builds is quiet on the rest.
  if (orchestration.trigger?.where && !evaluateCondition(orchestration.trigger.where, { event: loaded.event, outputs: new Map() }).holds) {
    await store.finishRun(runRef, { status: 'filtered' });
    return;
  }

  const { actor } = orchestration;
  // Jobs queued before 017 carry no root: their own event stands in for it.
  const run: RunContext = { depth: ref.depth, root: payload.root ?? ref.id, budget: deps.budget };
  const port: ActionPort = {
    async run(action, input, actionSignal) {
      // Every action of the cascade spends one of the root event's budget, whether it succeeds or not.
      if (!(await store.spendBudget(run))) {
        throw new ActionSkipped(`Ikke kjørt: budsjettet på ${run.budget} handlinger for hendelsen ${run.root} er brukt opp (ORCHESTRATION_BUDGET)`);
      }
      try {
        switch (action) {
          case 'http_post': {
            const post = input as ActionInputs['http_post'];
            // Into the service's own intake, each post would be a new root event: an endless chain.
            await requireNotOwnWebhook(store, post.url);
            return await deps.outside.httpPost(post, actionSignal);
          }
          case 'run_cli_tool': {
            const { tool_id, args } = input as ActionInputs['run_cli_tool'];
            return await deps.outside.runCliTool(await loadCliTool(store, actor, tool_id), args ?? [], actionSignal);
          }
          default:
            return await runGraphAction(store, actor, run, action, input as ActionInputs[typeof action], { ttsJobsPerPerson: deps.ttsJobsPerPerson });
        }
      } catch (error) {
        throw new Error(describeFailure(action, error), { cause: error });
      }
    },
  };
  let outcome;
  try {
    outcome = await runScript(script, loaded.event, {
      port,
      record,
      signal,
      secrets: await store.secretsOf(orchestration.id),
      ...(started ? { fromStep: started.fromStep, outputs: new Map(Object.entries(started.outputs).map(([n, output]) => [Number(n), output])) } : {}),
      // A run queued again to wait for a retry goes on at that step (issue 35).
      ...(payload.retry ? { fromStep: payload.retry.step, retryAt: payload.retry } : {}),
    });
  } catch (error) {
    // Cancelled or the log could not be written: the run failed with its job (the job's error says why).
    await store.finishRun(runRef, { status: 'failed' }).catch(() => {});
    throw error;
  }
  if (outcome.kind === 'waiting') {
    // The wait is graphile-worker's run_at, not a sleep here: a retrying run holds no worker slot.
    const next = await store.requeueRun(runRef, {
      payload: { ...payload, retry: outcome.at },
      runAt: new Date(Date.now() + outcome.wait_ms),
      outputs: Object.fromEntries(outcome.outputs),
      // Why this attempt failed: its job ends well, so the run keeps it (shown as the run's attempts).
      failed: { step: outcome.at.step, attempt: outcome.at.attempt - 1, ...(outcome.at.index !== undefined ? { index: outcome.at.index } : {}), error: outcome.error, job_id: jobId },
    });
    logger.info('orchestration waits to retry a step', { orchestration_id: orchestration.id, job_id: jobId, next_job_id: next, step: outcome.at.step, attempt: outcome.at.attempt, wait_ms: outcome.wait_ms });
    return;
  }
  await store.finishRun(runRef, {
    status: outcome.kind === 'completed' ? 'completed' : outcome.kind,
    ...(outcome.kind === 'stopped' ? { failedStep: outcome.step } : {}),
    outputs: Object.fromEntries(outcome.outputs),
  });
  logger.info('orchestration ran', { orchestration_id: orchestration.id, job_id: jobId, event: ref.type, depth: ref.depth, outcome: outcome.kind });
}

/** The log shows what went wrong in the same words the API would answer with. */
const APP_ERROR_TEXT: Partial<Record<AppError['code'], string>> = {
  forbidden: 'Ingen tilgang',
  not_found: 'Finnes ikke',
  invalid_input: 'Ugyldig forespørsel',
  conflict: 'Konflikt',
  tts_jobs_busy: 'Du har for mange opplesninger i kø; vent til en er ferdig',
};

function describeFailure(action: string, error: unknown): string {
  if (error instanceof AppError) {
    const text = APP_ERROR_TEXT[error.code] ?? error.code;
    return `${action}: ${error.detail ? `${text}: ${error.detail}` : text}`;
  }
  return coerceError(error).message;
}
