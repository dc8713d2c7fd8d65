import { DEFAULT_SPEECH_LIMITS } from '@inntak/media';
import type { startWorker } from '@inntak/worker/worker';

type WorkerConfig = Parameters<typeof startWorker>[0];

/**
 * The settings of a benchmark's in-process worker: the usual timings and limits, no crontab and
 * no orchestration allow-lists; the benchmark picks its concurrency and log level.
 */
export function benchWorkerConfig(databaseUrl: string, { concurrency, logLevel }: Pick<WorkerConfig, 'concurrency' | 'logLevel'>): WorkerConfig {
  return {
    databaseUrl,
    concurrency,
    logLevel,
    once: false,
    pollIntervalMs: 100,
    deferMs: 20,
    heartbeatMs: 1000,
    workerStaleMs: 30_000,
    rulesCacheMs: 5000,
    liveRoomCacheMs: 10_000,
    shutdownGraceMs: 5000,
    storageDir: '/tmp',
    speech: DEFAULT_SPEECH_LIMITS,
    crontab: '',
    orchestration: { httpAllow: [], cliAllow: [], budget: 100, ttsJobsPerPerson: 2 },
  };
}
