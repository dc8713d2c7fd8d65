import type { JobPayloads } from '@inntak/jobs';
import { orchestrateEvent, type OrchestrationStore } from '@inntak/orchestration';
import type { JobBody } from '../governed-task.js';
import { httpPost, runCliTool } from '../orchestration-io.js';

/** The task's settings: the worker's config module reads them as one object (config.ts `orchestration`), which worker.ts hands on. */
export interface OrchestrateSettings {
  /** ORCHESTRATION_HTTP_ALLOW: hosts http_post may reach. */
  httpAllow: readonly string[];
  /** ORCHESTRATION_CLI_ALLOW: commands run_cli_tool may run. */
  cliAllow: readonly string[];
  /** ORCHESTRATION_BUDGET: actions and queued runs one root event's whole cascade may take. */
  budget: number;
  /** TTS_JOBS_PER_PERSON: generate_tts jobs the creator may have queued or running at once; absent: the default. */
  ttsJobsPerPerson?: number;
}

export interface OrchestrateDeps extends OrchestrateSettings {
  /** Orchestration's port (packages/orchestration/src/ports.ts). */
  store: OrchestrationStore;
}

/**
 * Runs an orchestration for one event: the use case is packages/orchestration's
 * orchestrateEvent; the worker brings the actions that leave the service, its allow lists bound.
 */
export function orchestrate(deps: OrchestrateDeps): JobBody<JobPayloads['orchestrate']> {
  const outside = {
    httpPost: (input: Parameters<typeof httpPost>[0], signal: AbortSignal) => httpPost(input, deps.httpAllow, signal),
    runCliTool: (tool: Parameters<typeof runCliTool>[0], args: readonly string[], signal: AbortSignal) => runCliTool(tool, args, deps.cliAllow, signal),
  };
  const use = { store: deps.store, outside, budget: deps.budget, ttsJobsPerPerson: deps.ttsJobsPerPerson };
  return (payload, { signal, logger, jobId }) => orchestrateEvent(use, payload, { signal, logger, jobId });
}
