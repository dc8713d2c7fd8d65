import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { envVar } from '@inntak/core';
import { usableStorageDir } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, DEFAULT_TTS_JOBS_PER_PERSON, SPEECH_MAX_CHARS, type SpeechLimits } from '@inntak/media';
import { DEFAULT_BUDGET } from '@inntak/orchestration';
import type { OrchestrateSettings } from './tasks/orchestrate.js';

/**
 * The worker's one config module: nothing else reads process.env or argv. A task's settings are
 * grouped as the options object it takes (`speech`, `orchestration`), so worker.ts hands it on as it is.
 */
export interface WorkerConfig {
  databaseUrl: string;
  /** Jobs this process runs at once; the governor's global limits apply on top. */
  concurrency: number;
  logLevel: string;
  /** --once: run what is runnable now, then exit (cron-style). */
  once: boolean;
  /** How often an idle worker looks for jobs that became runnable (retries, deferred jobs). */
  pollIntervalMs: number;
  /** How much later a job the governor hands back is tried again. */
  deferMs: number;
  heartbeatMs: number;
  /** A worker process silent this long is dead: its jobs are released. */
  workerStaleMs: number;
  /** Rules are also reloaded on NOTIFY; this bounds staleness if a notification is lost. */
  rulesCacheMs: number;
  /** Spec, Limits: 10 s. */
  liveRoomCacheMs: number;
  /** Where media files live (STORAGE_DIR); the disk monitor and pruning measure its filesystem. Made and checked at start-up. */
  storageDir: string;
  /**
   * What one tts_generate job may cost (docs/media.md, issue 22): TTS_MAX_TEXT_CHARS,
   * TTS_MAX_AUDIO_SECONDS, MEDIA_BYTES_PER_COLLECTION. A job past one fails with the reason.
   */
  speech: SpeechLimits;
  /**
   * TRANSCRIPTION_MODEL_DIR: the PocketSphinx model speech_transcription loads (docs/media.md,
   * "Transcription"); absent: no recognizer, and speech_transcription jobs fail saying so.
   */
  transcriptionModelDir?: string;
  /** On SIGTERM, running jobs get this long to finish before their signal aborts them. */
  shutdownGraceMs: number;
  /**
   * graphile-worker crontab: apps/worker/crontab, or WORKER_CRONTAB's text instead. It checks the
   * disk every minute and prunes storage every 6 hours and every 15 minutes while the disk is full.
   */
  crontab: string;
  /**
   * The orchestrate task's settings, as the object it takes (tasks/orchestrate.ts): ORCHESTRATION_HTTP_ALLOW
   * (host:port, or a bare host: ports 80/443 only, an http_post may reach), ORCHESTRATION_CLI_ALLOW
   * (commands a cli_tool node may run), ORCHESTRATION_BUDGET (actions, and runs they queue, one root
   * event's whole cascade may take; what exceeds it is logged as skipped: docs/orchestration.md, issue 22),
   * TTS_JOBS_PER_PERSON (tts_generate jobs one person's orchestrations may have queued or running at
   * once, as the API's; default 2).
   */
  orchestration: Required<OrchestrateSettings>;
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** From src/ (tests) and dist/ alike: the file beside them. */
export const CRONTAB_FILE = fileURLToPath(new URL('../crontab', import.meta.url));

/** The worker's settings, one zod piece per variable (packages/core config-schema). */
const workerEnv = z
  .object({
    DATABASE_URL: envVar.postgresUrl('is not set (npm start sets it, with an embedded PostgreSQL)'),
    WORKER_CONCURRENCY: envVar.integer(3, 1),
    LOG_LEVEL: envVar.logLevel(),
    WORKER_POLL_INTERVAL_MS: envVar.integer(1000, 10),
    JOB_DEFER_MS: envVar.integer(500, 1),
    JOB_HEARTBEAT_MS: envVar.integer(5000, 10),
    JOB_WORKER_STALE_MS: envVar.integer(30_000, 50),
    JOB_RULES_CACHE_MS: envVar.integer(5000, 0),
    LIVE_ROOM_CACHE_MS: envVar.integer(10_000, 0),
    WORKER_SHUTDOWN_GRACE_MS: envVar.integer(5000, 0),
    STORAGE_DIR: envVar.text(),
    TTS_MAX_TEXT_CHARS: envVar.integer(DEFAULT_SPEECH_LIMITS.maxTextChars, 1, SPEECH_MAX_CHARS),
    TTS_MAX_AUDIO_SECONDS: envVar.integer(DEFAULT_SPEECH_LIMITS.maxAudioSeconds, 1, 86_400),
    MEDIA_BYTES_PER_COLLECTION: envVar.size(String(DEFAULT_SPEECH_LIMITS.collectionMediaBytes)),
    WORKER_CRONTAB: z.string().optional(),
    ORCHESTRATION_HTTP_ALLOW: envVar.commaList(),
    ORCHESTRATION_CLI_ALLOW: envVar.commaList(),
    ORCHESTRATION_BUDGET: envVar.integer(DEFAULT_BUDGET, 1),
    TTS_JOBS_PER_PERSON: envVar.integer(DEFAULT_TTS_JOBS_PER_PERSON, 1, 1000),
    TRANSCRIPTION_MODEL_DIR: envVar.text(),
  })
  .transform((env): Omit<WorkerConfig, 'once'> => ({
    databaseUrl: env.DATABASE_URL!,
    concurrency: env.WORKER_CONCURRENCY,
    logLevel: env.LOG_LEVEL,
    pollIntervalMs: env.WORKER_POLL_INTERVAL_MS,
    deferMs: env.JOB_DEFER_MS,
    heartbeatMs: env.JOB_HEARTBEAT_MS,
    workerStaleMs: env.JOB_WORKER_STALE_MS,
    rulesCacheMs: env.JOB_RULES_CACHE_MS,
    liveRoomCacheMs: env.LIVE_ROOM_CACHE_MS,
    shutdownGraceMs: env.WORKER_SHUTDOWN_GRACE_MS,
    storageDir: usableStorageDir(env.STORAGE_DIR ?? `${REPO_ROOT}.data/media`),
    speech: { maxTextChars: env.TTS_MAX_TEXT_CHARS, maxAudioSeconds: env.TTS_MAX_AUDIO_SECONDS, collectionMediaBytes: env.MEDIA_BYTES_PER_COLLECTION },
    crontab: env.WORKER_CRONTAB ?? readFileSync(CRONTAB_FILE, 'utf8'),
    orchestration: { httpAllow: env.ORCHESTRATION_HTTP_ALLOW, cliAllow: env.ORCHESTRATION_CLI_ALLOW, budget: env.ORCHESTRATION_BUDGET, ttsJobsPerPerson: env.TTS_JOBS_PER_PERSON },
    ...(env.TRANSCRIPTION_MODEL_DIR ? { transcriptionModelDir: env.TRANSCRIPTION_MODEL_DIR } : {}),
  }));

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): WorkerConfig {
  const config = envVar.parseEnv(workerEnv, env);
  const unknown = argv.filter((arg) => arg !== '--once');
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}; the worker takes only --once`);
  return { ...config, once: argv.includes('--once') };
}
