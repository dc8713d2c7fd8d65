import { EventEmitter } from 'node:events';
import { run, runOnce, type Runner, type WorkerEvents } from 'graphile-worker';
import type winston from 'winston';
import type { DiskProbe } from '@inntak/jobs';
import { LocalFileStore } from '@inntak/files';
import type { SpeechRecognizer, SpeechSynthesizer } from '@inntak/media';
import { planScheduledRuns } from '@inntak/orchestration';
import { openDatabase, type Db } from '@inntak/postgres';
import { postgresMixdownCatalog, postgresPruneCatalog, postgresSpeechCatalog, postgresTranscriptionCatalog } from '@inntak/postgres/media';
import {
  heartbeat,
  newWorkerProcess,
  PostgresGovernorSource,
  postgresJobRuns,
  PostgresLiveRoomStatus,
  postgresResourceLog,
  reconcileDeadWorkers,
  registerWorker,
  unregisterWorkerProcess,
} from '@inntak/postgres/jobs';
import { propagateBelongsTo } from '@inntak/postgres/graph';
import { pruneDeliveries } from '@inntak/postgres/deliveries';
import { PostgresPublishingStore } from '@inntak/postgres/publishing';
import { PostgresOrchestrationStore, resumeLostRuns } from '@inntak/postgres/orchestration';
import type { WorkerConfig } from './config.js';
import type { JobBody } from './governed-task.js';
import { checkDisk } from './disk-monitor.js';
import { Governor } from './governor.js';
import { workerLogger } from './logger.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { PocketsphinxSpeechRecognizer } from './pocketsphinx-speech-recognizer.js';
import { StatfsDiskProbe } from './statfs-disk-probe.js';
import { createTaskList, jobBodies, type GraphRepair, type HousekeepingDeps, type MediaAdapters, type MediaDeps } from './task-list.js';

export interface WorkerOverrides {
  /** Extra job types (tests: sleep jobs of given weights). */
  extraBodies?: Record<string, JobBody<never>>;
  diskProbe?: DiskProbe;
  synthesizer?: SpeechSynthesizer;
  recognizer?: SpeechRecognizer;
}

/** The media tasks' dependencies on PostgreSQL: the adapters with media's catalogs over `db`. */
export function postgresMediaDeps(db: Db, adapters: MediaAdapters): MediaDeps {
  return { ...adapters, speechCatalog: postgresSpeechCatalog(db), pruneCatalog: postgresPruneCatalog(db), mixdownCatalog: postgresMixdownCatalog(db), transcriptionCatalog: postgresTranscriptionCatalog(db) };
}

/** access_repair's port on PostgreSQL. */
export function postgresGraphRepair(db: Db): GraphRepair {
  return { repairAccess: (edgeId) => propagateBelongsTo(db, edgeId) };
}

/** The housekeeping tasks' ports on PostgreSQL: the A/B tests and the delivery log. */
export function postgresHousekeeping(db: Db): HousekeepingDeps {
  return { abTests: new PostgresPublishingStore(db), pruneDeliveries: () => pruneDeliveries(db), planScheduledRuns: () => planScheduledRuns(new PostgresOrchestrationStore(db)) };
}

export interface RunningWorker {
  processId: string;
  /** Finishes or releases running jobs, then closes the pool. */
  stop(): Promise<void>;
  /** Settles when the runner stops (for --once: when the queue is drained). */
  done: Promise<void>;
}

/**
 * Wires one worker process: pool, governor, task list, heartbeat/reconciliation and the runner.
 * `startup` aborted (a signal during start-up): what was begun is undone and the promise rejects
 * with its reason.
 */
export async function startWorker(config: WorkerConfig, logger: winston.Logger, overrides: WorkerOverrides = {}, startup?: AbortSignal): Promise<RunningWorker> {
  startup?.throwIfAborted();
  // concurrency workers + the notification listener + heartbeat/governor reads.
  const database = openDatabase({ connectionString: config.databaseUrl, logger, max: config.concurrency + 3, asyncCommit: true });
  const { db, pool } = database;
  const worker = newWorkerProcess();
  // A model directory that is not one stops the worker here, naming what is missing.
  const recognizer = overrides.recognizer ?? (config.transcriptionModelDir ? new PocketsphinxSpeechRecognizer(config.transcriptionModelDir) : undefined);
  const media = postgresMediaDeps(db, {
    files: new LocalFileStore(config.storageDir),
    synthesizer: overrides.synthesizer ?? new EspeakSpeechSynthesizer(),
    speechLimits: config.speech,
    ...(recognizer ? { recognizer } : {}),
  });
  const orchestration = { ...config.orchestration, store: new PostgresOrchestrationStore(db) };
  const bodies = { ...jobBodies(postgresGraphRepair(db), media, orchestration), ...overrides.extraBodies };
  const governor = new Governor({
    source: new PostgresGovernorSource(db, pool, logger),
    logger,
    liveRooms: new PostgresLiveRoomStatus(db),
    liveRoomCacheMs: config.liveRoomCacheMs,
    rulesCacheMs: config.rulesCacheMs,
    jobTypes: Object.keys(bodies),
  });
  const diskDeps = { resources: postgresResourceLog(db), worker, logger, probe: overrides.diskProbe ?? new StatfsDiskProbe(), storageDir: config.storageDir };
  const taskList = createTaskList(bodies, { runs: postgresJobRuns(db), worker, governor, logger, deferMs: config.deferMs }, diskDeps, media, postgresHousekeeping(db));
  const events: WorkerEvents = new EventEmitter();
  // Jobs are locked under the pool's id (graphile-worker 0.17) or a worker's; register both so a
  // job this process fetched but had not yet admitted is released too if the process dies.
  const register = (id: string) => {
    registerWorker(db, worker, id).catch((err: Error) => logger.warn('worker registration failed', { error: err.message }));
  };
  events.on('pool:create', ({ workerPool }) => register(workerPool.id));
  events.on('worker:create', ({ worker: w }) => register(w.workerId));
  let heartbeatTimer: NodeJS.Timeout | undefined = undefined;
  let runner: Runner | undefined;
  let done: Promise<void> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(heartbeatTimer);
      if (runner) await runner.stop();
      else if (config.once) await done.catch(() => {});
      await governor.stop();
      await unregisterWorkerProcess(db, worker).catch(() => {});
      await database.close();
    })());
  const abandonIfAborted = async () => {
    if (!startup?.aborted) return;
    await stop();
    startup.throwIfAborted();
  };
  await governor.listen();
  await abandonIfAborted();

  const tick = async () => {
    try {
      await heartbeat(db, worker);
      // An orchestration run whose job died with its worker is taken up again (or ends failed), never left running.
      const report = await reconcileDeadWorkers(db, config.workerStaleMs, resumeLostRuns);
      if (report.releasedJobs.length > 0 || report.deadProcesses.length > 0) {
        logger.warn('released the jobs of dead worker processes', {
          dead_processes: report.deadProcesses,
          job_ids: report.releasedJobs,
          runs_resumed: report.after?.resumed ?? [],
          runs_failed: report.after?.failed ?? [],
        });
      }
    } catch (err) {
      logger.warn('heartbeat failed', { error: (err as Error).message });
    }
  };
  await tick();
  await abandonIfAborted();
  // The crontab first measures at the next whole minute; until then /admin/resources/disk would
  // be empty on a new installation, so a long-running worker measures once as it starts.
  if (!config.once) await checkDisk(diskDeps).catch((err: Error) => logger.warn('disk check at start failed', { error: err.message }));
  await abandonIfAborted();
  heartbeatTimer = setInterval(() => void tick(), config.heartbeatMs);

  const shared = {
    pgPool: pool,
    taskList,
    logger: workerLogger(logger),
    events,
    forbiddenFlags: governor.forbiddenFlags,
    noHandleSignals: true,
    gracefulShutdownAbortTimeout: config.shutdownGraceMs,
  };
  if (config.once) {
    done = runOnce(shared);
  } else {
    runner = await run({ ...shared, concurrency: config.concurrency, pollInterval: config.pollIntervalMs, crontab: config.crontab });
    done = runner.promise;
    await abandonIfAborted();
  }
  logger.info('worker started', { process_id: worker.processId, concurrency: config.concurrency, once: config.once });
  return { processId: worker.processId, stop, done };
}
