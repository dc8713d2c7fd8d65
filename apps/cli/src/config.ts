import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The CLI's one config module: nothing else reads process.env. */
export interface CliConfig {
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL (and the development issuer's key) lives. */
  dataDir: string;
  embeddedPort: number;
  baseUrl: string;
  logLevel: string;
  /** The environment as given, for the API and worker processes `start` runs. */
  env: NodeJS.ProcessEnv;
  /** STORAGE_DIR: where media files live (inntak prune). */
  storageDir: string;
  /** ORCHESTRATIONS_PER_PERSON: orchestrations one person may have (`orchestration add` runs as the collection's owner). */
  orchestrationsPerPerson: number;
}

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const port = portNumber(env, 'PORT', 8080);
  const embeddedPort = portNumber(env, 'EMBEDDED_PG_PORT', 54329);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) throw new Error(`BASE_URL must be an absolute http(s) URL; got "${env.BASE_URL}"`);
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl !== undefined && !isPostgresUrl(databaseUrl)) {
    throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
  }
  const dataDir = env.INNTAK_DATA_DIR ?? `${REPO_ROOT}.data`;
  if (dataDir.trim() === '' || /[\0\n\r]/.test(dataDir)) throw new Error(`INNTAK_DATA_DIR must be a directory path; got ${JSON.stringify(dataDir)}`);
  return {
    databaseUrl,
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(dataDir),
    embeddedPort,
    baseUrl,
    logLevel,
    env,
    storageDir: env.STORAGE_DIR ?? `${REPO_ROOT}.data/media`,
    orchestrationsPerPerson: positiveInteger(env, 'ORCHESTRATIONS_PER_PERSON', 100),
  };
}

/** Digits only: "", "8.08e3" and "0x1f90" are mistakes, not ports (Number() would take them). */
function portNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  const value = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 0 && value <= 65535)) throw new Error(`${name} must be a port number from 0 to 65535; got "${raw}"`);
  return value;
}

export function isPostgresUrl(raw: string): boolean {
  return URL.canParse(raw) && ['postgres:', 'postgresql:'].includes(new URL(raw).protocol);
}

export const APP_ENTRYPOINTS = {
  api: fileURLToPath(new URL('../../api/dist/main.js', import.meta.url)),
  worker: fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url)),
};

/** Each app's own config module, so `start` can refuse a bad setting before it migrates. */
export const APP_CONFIG_MODULES = {
  api: new URL('../../api/dist/config.js', import.meta.url).href,
  worker: new URL('../../worker/dist/config.js', import.meta.url).href,
};

/** Digits only, at least 1. */
function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1)) throw new Error(`${name} must be a whole number of at least 1; got "${raw}"`);
  return value;
}
