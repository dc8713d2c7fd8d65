import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { usableStorageDir } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, DEFAULT_TTS_JOBS_PER_PERSON, SPEECH_MAX_CHARS, type SpeechLimits } from '@inntak/media';
import { DEFAULT_BUDGET, parseAllowList } from '@inntak/orchestration';

/** The worker's one config module: nothing else reads process.env or argv. */
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
  /** On SIGTERM, running jobs get this long to finish before their signal aborts them. */
  shutdownGraceMs: number;
  /**
   * graphile-worker crontab: apps/worker/crontab, or WORKER_CRONTAB's text instead. It checks the
   * disk every minute and prunes storage every 6 hours and every 15 minutes while the disk is full.
   */
  crontab: string;
  /** ORCHESTRATION_HTTP_ALLOW: hosts (or host:port) an orchestration's http_post may reach. */
  orchestrationHttpAllow: string[];
  /** ORCHESTRATION_CLI_ALLOW: commands a cli_tool node may run. */
  orchestrationCliAllow: string[];
  /**
   * ORCHESTRATION_BUDGET: actions (and runs they queue) one root event's whole orchestration
   * cascade may take; what exceeds it is logged as skipped (docs/orchestration.md, issue 22).
   */
  orchestrationBudget: number;
  /** TTS_JOBS_PER_PERSON: tts_generate jobs one person's orchestrations may have queued or running at once (as the API's; default 2). */
  ttsJobsPerPerson: number;
}

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** From src/ (tests) and dist/ alike: the file beside them. */
export const CRONTAB_FILE = fileURLToPath(new URL('../crontab', import.meta.url));

export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): WorkerConfig {
  if (!env.DATABASE_URL) throw new Error('DATABASE_URL is not set (npm start sets it, with an embedded PostgreSQL)');
  const unknown = argv.filter((arg) => arg !== '--once');
  if (unknown.length > 0) throw new Error(`unknown argument ${unknown[0]}; the worker takes only --once`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  return {
    databaseUrl: env.DATABASE_URL,
    concurrency: integer(env, 'WORKER_CONCURRENCY', 3, 1),
    logLevel,
    once: argv.includes('--once'),
    pollIntervalMs: integer(env, 'WORKER_POLL_INTERVAL_MS', 1000, 10),
    deferMs: integer(env, 'JOB_DEFER_MS', 500, 1),
    heartbeatMs: integer(env, 'JOB_HEARTBEAT_MS', 5000, 10),
    workerStaleMs: integer(env, 'JOB_WORKER_STALE_MS', 30_000, 50),
    rulesCacheMs: integer(env, 'JOB_RULES_CACHE_MS', 5000, 0),
    liveRoomCacheMs: integer(env, 'LIVE_ROOM_CACHE_MS', 10_000, 0),
    shutdownGraceMs: integer(env, 'WORKER_SHUTDOWN_GRACE_MS', 5000, 0),
    storageDir: usableStorageDir(env.STORAGE_DIR || `${REPO_ROOT}.data/media`),
    speech: {
      maxTextChars: integer(env, 'TTS_MAX_TEXT_CHARS', DEFAULT_SPEECH_LIMITS.maxTextChars, 1, SPEECH_MAX_CHARS),
      maxAudioSeconds: integer(env, 'TTS_MAX_AUDIO_SECONDS', DEFAULT_SPEECH_LIMITS.maxAudioSeconds, 1, 86_400),
      collectionMediaBytes: size(env, 'MEDIA_BYTES_PER_COLLECTION', DEFAULT_SPEECH_LIMITS.collectionMediaBytes),
    },
    crontab: env.WORKER_CRONTAB ?? readFileSync(CRONTAB_FILE, 'utf8'),
    orchestrationHttpAllow: parseAllowList(env.ORCHESTRATION_HTTP_ALLOW),
    orchestrationCliAllow: parseAllowList(env.ORCHESTRATION_CLI_ALLOW),
    orchestrationBudget: integer(env, 'ORCHESTRATION_BUDGET', DEFAULT_BUDGET, 1),
    ttsJobsPerPerson: integer(env, 'TTS_JOBS_PER_PERSON', DEFAULT_TTS_JOBS_PER_PERSON, 1, 1000),
  };
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(max === Number.MAX_SAFE_INTEGER ? `${name} must be an integer of at least ${min}; got "${raw}"` : `${name} must be an integer from ${min} to ${max}; got "${raw}"`);
  }
  return value;
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** "1gb", "512mb" or a plain byte count, as the API's sizes. */
function size(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(raw);
  if (!match) throw new Error(`${name} must be a size like 1gb, 512mb or 1048576; got "${raw}"`);
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}
