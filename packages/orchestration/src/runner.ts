import { coerceError } from '@inntak/core';
import { ACTION_INPUTS } from './actions.js';
import { evaluateCondition } from './conditions.js';
import { describePath } from './script.js';
import { isFilterStep, RetryableActionError, retryWaitMs, type ActionCall, type ActionPort, type ActionStep, type EventVariables, type JsonObject, type Retry, type RetryPoint, type Script, type StepRecord } from './types.js';
import { resolveUrl, resolveVariables, type VariableContext } from './variables.js';

/**
 * Thrown by an action port for an action it did not run and will not run in this run (the root
 * event's budget is spent): the step is logged as `skipped` and the run stops, without fallbacks,
 * which would be refused the same way.
 */
export class ActionSkipped extends Error {}

export interface RunDeps {
  port: ActionPort;
  /** Writes one log row; awaited, so the log is in step order. */
  record(entry: StepRecord): Promise<void>;
  signal: AbortSignal;
  now?: () => number;
  /** A re-run starts at this step (1-based), with the outputs the first run's earlier steps had. */
  fromStep?: number;
  outputs?: ReadonlyMap<number, JsonObject>;
  /** The orchestration's secrets ({secrets.NAME} in http_post headers); their values never reach the log. */
  secrets?: ReadonlyMap<string, string>;
  /** A run re-queued to wait for a retry continues here (fromStep is this step). */
  retryAt?: RetryPoint;
}

/**
 * `waiting`: a step failed in a way worth retrying and has attempts left. The run is not done:
 * its job queues it again `wait_ms` later at `at` (graphile-worker's run_at), so the wait holds
 * no worker slot (issue 35). In a for_each, the step's output so far is in `outputs`.
 */
export type RunOutcome = (
  | { kind: 'completed'; steps: number }
  | { kind: 'stopped'; step: number; error: string }
  | { kind: 'filtered'; step: number; reason: string }
  | { kind: 'waiting'; at: RetryPoint; wait_ms: number; error: string }
) & {
  /** Each step's output by number (for a re-run from a failed step), every secret's value redacted as in the log. */
  outputs: Map<number, JsonObject>;
};

/** A for_each runs its action at most this many times (each also spends the root event's budget). */
export const MAX_FOR_EACH_ITEMS = 1000;
const REDACTED = '[hemmelig]';

/**
 * Runs a script's steps in order. A step whose `when` does not hold is logged as skipped with the
 * reason; a `filter` that does not hold ends the run (no error). A failed step runs its fallback;
 * when that fails too (or there is none) the global fallback runs with `{error}`, and the run
 * stops. Every step, fallback and the stop is one record. A step whose fallback succeeded counts
 * as done: its fallback's output is `{steps.n.output}` and the run goes on.
 */
export async function runScript(script: Script, event: EventVariables, deps: RunDeps): Promise<RunOutcome> {
  const outcome = await runSteps(script, event, deps);
  // The outputs are stored on the run for a re-run (issue 35, finding 2): redacted like the log,
  // so a server's echo of `Bearer {secrets.X}` is not kept where another script could read it.
  const hide = hider(deps.secrets);
  // A waiting run's error is kept on the run as a failed attempt (039): redacted too.
  if (!hide) return outcome;
  const outputs = new Map([...outcome.outputs].map(([n, output]) => [n, hideInJson(output, hide)]));
  return outcome.kind === 'waiting' ? { ...outcome, error: hide(outcome.error), outputs } : { ...outcome, outputs };
}

async function runSteps(script: Script, event: EventVariables, deps: RunDeps): Promise<RunOutcome> {
  const outputs = new Map<number, JsonObject>(deps.outputs ?? []);
  const now = deps.now ?? (() => performance.now());
  const secrets = deps.secrets ?? new Map<string, string>();
  const hide = hider(secrets);
  const record = (entry: StepRecord) => deps.record(hide ? redact(entry, hide) : entry);
  type Waiting = { waiting: { attempt: number; wait_ms: number; error: string; index?: number; items?: JsonObject[] } };
  type Attempt = { ok: true; output: JsonObject; ms: number } | { ok: false; error: string; ms: number; skipped?: true } | Waiting;

  const once = async (call: ActionCall, context: VariableContext): Promise<{ ok: true; output: JsonObject } | { ok: false; error: string; skipped?: true; retryable?: true }> => {
    try {
      const resolved = resolveInput(call, context);
      const input = ACTION_INPUTS[call.action].safeParse(resolved);
      if (!input.success) {
        const issue = input.error.issues[0]!;
        return { ok: false, error: `Ugyldig input til ${call.action}: ${describePath(issue.path as (string | number)[])}: ${issue.message}` };
      }
      return { ok: true, output: await deps.port.run(call.action, input.data as JsonObject, deps.signal) };
    } catch (error) {
      if (error instanceof ActionSkipped) return { ok: false, error: error.message, skipped: true };
      const retryable = error instanceof RetryableActionError || (error as Error).cause instanceof RetryableActionError;
      return { ok: false, error: coerceError(error).message, ...(retryable ? { retryable: true as const } : {}) };
    }
  };
  /**
   * Attempt `n` of one call. When it fails in a way worth retrying (http_post's retry: 5xx,
   * timeouts; never 4xx) and attempts are left, the answer is to wait: the run is queued again
   * rather than sleeping in its job, which would hold a worker slot (issue 35).
   */
  const withRetry = async (call: ActionCall, context: VariableContext, retry: Retry | undefined, n = 1) => {
    const result = await once(call, context);
    if (result.ok || result.skipped || !result.retryable || n >= (retry?.attempts ?? 1)) {
      return !result.ok && n > 1 ? { ...result, error: `${result.error} (${n} forsøk)` } : result;
    }
    return { waiting: { attempt: n + 1, wait_ms: retryWaitMs(retry!, n + 1), error: result.error } };
  };
  const attempt = async (call: ActionCall, context: VariableContext, step?: ActionStep, resume?: RetryPoint): Promise<Attempt> => {
    const started = now();
    const ms = () => Math.round(now() - started);
    if (!step?.for_each) {
      const result = await withRetry(call, context, step?.retry, resume?.attempt);
      return 'waiting' in result ? result : { ...result, ms: ms() };
    }
    let items: unknown;
    try {
      items = resolveVariables(step.for_each, context);
    } catch (error) {
      return { ok: false, error: coerceError(error).message, ms: ms() };
    }
    if (!Array.isArray(items)) return { ok: false, error: `for_each: ${step.for_each} er ingen liste`, ms: ms() };
    if (items.length > MAX_FOR_EACH_ITEMS) return { ok: false, error: `for_each: ${step.for_each} har ${items.length} elementer; høyst ${MAX_FOR_EACH_ITEMS}`, ms: ms() };
    // A run that waited for an element's retry starts at that element, with the ones before it done.
    const from = resume?.index ?? 0;
    const results: JsonObject[] = from > 0 ? [...((outputs.get(resume!.step)?.items as JsonObject[] | undefined) ?? [])].slice(0, from) : [];
    for (const [index, item] of items.entries()) {
      if (index < from) continue;
      deps.signal.throwIfAborted();
      const result = await withRetry(call, { ...context, item, index }, step.retry, index === from ? resume?.attempt : undefined);
      if ('waiting' in result) return { waiting: { ...result.waiting, index, items: results } };
      if (!result.ok) return { ...result, error: `for_each element ${index}: ${result.error}`, ms: ms() };
      results.push(result.output);
    }
    return { ok: true, output: { count: results.length, items: results }, ms: ms() };
  };
  /** A fallback: one call, no retry, so never a wait. */
  const attemptOnce = async (call: ActionCall, context: VariableContext) => {
    const started = now();
    const result = await withRetry(call, context, undefined);
    if ('waiting' in result) throw new Error('a call without retry cannot wait');
    return { ...result, ms: Math.round(now() - started) };
  };
  const stopSkipped = async (number: number, action: ActionCall['action'], fallback: StepRecord['fallback'], error: string): Promise<RunOutcome> => {
    const left = script.steps.length - number + (fallback === null ? 1 : 0);
    await record({ step: number, action, fallback, status: 'skipped', error: `${error}; ${left} steg hoppet over`, duration_ms: 0 });
    return { kind: 'stopped', step: number, error, outputs };
  };

  for (const [index, step] of script.steps.entries()) {
    deps.signal.throwIfAborted();
    const number = index + 1;
    if (number < (deps.fromStep ?? 1)) continue;
    const context: VariableContext = { event, outputs, secrets };
    const action = isFilterStep(step) ? null : step.action;
    if (step.when) {
      const when = evaluateCondition(step.when, context);
      if (!when.holds) {
        await record({ step: number, action, fallback: null, status: 'skipped', error: `Hoppet over: when: ${when.reason}`, duration_ms: 0 });
        continue;
      }
    }
    if (isFilterStep(step)) {
      const filter = evaluateCondition(step.filter, context);
      if (filter.holds) continue;
      const left = script.steps.length - number;
      await record({ step: number, action: null, fallback: null, status: 'skipped', error: `Filteret slapp ikke hendelsen gjennom: ${filter.reason}; ${left} steg hoppet over`, duration_ms: 0 });
      return { kind: 'filtered', step: number, reason: filter.reason, outputs };
    }
    const resume = deps.retryAt?.step === number ? deps.retryAt : undefined;
    const first = await attempt(step, context, step, resume);
    if ('waiting' in first) {
      const { attempt: next, wait_ms, error, index, items } = first.waiting;
      if (items) outputs.set(number, { count: items.length, items });
      return { kind: 'waiting', at: { step: number, attempt: next, ...(index !== undefined ? { index } : {}) }, wait_ms, error, outputs };
    }
    if (!first.ok && first.skipped) return stopSkipped(number, step.action, null, first.error);
    if (first.ok) {
      await record({ step: number, action: step.action, fallback: null, status: 'ok', output: first.output, duration_ms: first.ms });
      outputs.set(number, first.output);
      continue;
    }
    await record({ step: number, action: step.action, fallback: null, status: 'failed', error: first.error, duration_ms: first.ms });
    let error = first.error;
    if (step.fallback) {
      const fallback = await attemptOnce(step.fallback, { ...context, error });
      if (!fallback.ok && fallback.skipped) return stopSkipped(number, step.fallback.action, 'step', fallback.error);
      if (fallback.ok) {
        await record({ step: number, action: step.fallback.action, fallback: 'step', status: 'fallback_ok', output: fallback.output, duration_ms: fallback.ms });
        outputs.set(number, fallback.output);
        continue;
      }
      await record({ step: number, action: step.fallback.action, fallback: 'step', status: 'fallback_failed', error: fallback.error, duration_ms: fallback.ms });
      error = fallback.error;
    }
    if (script.fallback) {
      const global = await attemptOnce(script.fallback, { ...context, error });
      if (!global.ok && global.skipped) return stopSkipped(number, script.fallback.action, 'global', global.error);
      await record(
        global.ok
          ? { step: number, action: script.fallback.action, fallback: 'global', status: 'fallback_ok', output: global.output, duration_ms: global.ms }
          : { step: number, action: script.fallback.action, fallback: 'global', status: 'fallback_failed', error: global.error, duration_ms: global.ms },
      );
    }
    const left = script.steps.length - number;
    await record({ step: number, action: null, fallback: null, status: 'skipped', error: `Stoppet etter feil i steg ${number}; ${left} steg hoppet over`, duration_ms: 0 });
    return { kind: 'stopped', step: number, error, outputs };
  }
  return { kind: 'completed', steps: script.steps.length, outputs };
}

/** Replaces every secret's value in a text (as written, and as written inside JSON); undefined when there are none. */
function hider(secrets: ReadonlyMap<string, string> | undefined): ((text: string) => string) | undefined {
  const values = [...(secrets?.values() ?? [])].filter((v) => v.length > 0);
  if (values.length === 0) return undefined;
  return (text) => values.reduce((t, v) => t.replaceAll(v, REDACTED).replaceAll(JSON.stringify(v).slice(1, -1), REDACTED), text);
}

function hideInJson(value: JsonObject, hide: (text: string) => string): JsonObject {
  return JSON.parse(hide(JSON.stringify(value))) as JsonObject;
}

/** A log row with every secret's value replaced. */
function redact(entry: StepRecord, hide: (text: string) => string): StepRecord {
  return {
    ...entry,
    ...(entry.error !== undefined ? { error: hide(entry.error) } : {}),
    ...(entry.output !== undefined ? { output: hideInJson(entry.output, hide) } : {}),
  };
}

/**
 * An action's input with its variables filled in. In an http_post URL every variable is
 * percent-encoded: what an event's sender wrote fills one part of the URL and cannot change its
 * path or query (docs/orchestration.md).
 */
function resolveInput(call: ActionCall, context: VariableContext): unknown {
  if (call.action !== 'http_post' || typeof call.with.url !== 'string') return resolveVariables(call.with, context);
  const { url, ...rest } = call.with;
  return { ...(resolveVariables(rest, context) as JsonObject), url: resolveUrl(url, context) };
}
