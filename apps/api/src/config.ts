import { fileURLToPath } from 'node:url';
import { usableStorageDir } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, DEFAULT_TTS_JOBS_PER_PERSON, SPEECH_MAX_CHARS } from '@inntak/media';

/**
 * The API's one config module: nothing else reads process.env. Validated at start-up so a bad
 * setting fails fast with a message naming it.
 */
export interface ApiConfig {
  /** Absent: the caller (npm start / CLI) starts an embedded PostgreSQL and sets it. */
  databaseUrl: string | undefined;
  port: number;
  /** HOST: the address to listen on; absent: every interface (loopback only with the dev issuer). */
  host: string | undefined;
  /** INNTAK_DEV_ISSUER=1: also trust `inntak token`'s issuer, whose key lives in dataDir. Loopback only. */
  devIssuer: { dataDir: string } | undefined;
  /** Why INNTAK_DEV_ISSUER=1 was not honoured (it is logged as a warning at start). */
  devIssuerRefused: string | undefined;
  oidcIssuer: string | undefined;
  oidcAudience: string | undefined;
  bodyLimitBytes: number;
  logLevel: string;
  baseUrl: string;
  slowRequestMs: number;
  slowQueryMs: number;
  realtime: {
    /** REALTIME_MAX_QUEUE: packets a /ws client may have waiting before it is told to resync. */
    maxQueue: number;
    /** REALTIME_SYNC_COLLECTIONS / REALTIME_SYNC_NODES: bounds of initial_sync. */
    initialSync: { collections: number; nodesPerCollection: number };
  };
  /** Bearer token that may read GET /metrics (for a scraper); absent: only admin JWTs may. */
  metricsToken: string | undefined;
  /** STORAGE_DIR: where media files live; default .data/media in the repository. Made and checked at start-up. */
  storageDir: string;
  /** INTAKE_POOL_SIZE: intake's own database connections, which reads cannot take (docs/security.md). */
  intakePoolSize: number;
  /** READ_CONCURRENCY_PER_CALLER: searches, listings and node reads one person may run at once (429 beyond). */
  readsPerCaller: number;
  /** TRUST_PROXY: hops (1–10) or addresses/subnets of reverse proxies whose X-Forwarded-For is believed; absent: none. */
  trustProxy: number | string | undefined;
  /** The published pages' per-client limits (docs/publishing.md, docs/security.md "Public pages (issue 22)"). */
  publicPages: {
    /** PUB_SEARCH_CONCURRENCY: /sok searches running at once on one API process, all readers together. */
    searchConcurrency: number;
    /** PUB_SEARCHES_PER_MINUTE: /sok searches one address may start per minute (one at a time). */
    searchesPerMinute: number;
    /** AB_CLIENT_WINDOW_HOURS: a client counts one impression and one click per article per window. */
    abWindowHours: number;
    /** AB_CLIENTS_PER_ADDRESS: clients of one address (an IPv6 address by its /48) that count per window. */
    abClientsPerAddress: number;
  };
  /** What POST /intentions/generate_tts refuses in advance (docs/media.md, issue 22). */
  speech: {
    /** TTS_MAX_TEXT_CHARS: characters one job reads aloud. */
    maxTextChars: number;
    /** TTS_MAX_AUDIO_SECONDS: seconds of audio one job may make (estimated from text and rate). */
    maxAudioSeconds: number;
    /** TTS_JOBS_PER_PERSON: jobs one person may have queued or running at once (429 beyond). */
    jobsPerPerson: number;
    /** MEDIA_BYTES_PER_COLLECTION: media a collection may hold before new speech is refused (409). */
    collectionMediaBytes: number;
  };
  /** ORCHESTRATIONS_PER_PERSON: orchestrations one person may have (409 beyond; docs/orchestration.md). */
  orchestrationsPerPerson: number;
}

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];
/** Express buffers a body in memory; more than this per request is a typo, not a setting. */
export const MAX_BODY_LIMIT = '100mb';
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const port = portNumber(env.PORT ?? '8080', 'PORT');
  const host = env.HOST || undefined;
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  if (!URL.canParse(baseUrl) || !/^https?:$/.test(new URL(baseUrl).protocol)) {
    throw new Error(`BASE_URL must be an absolute http(s) URL; got "${env.BASE_URL}"`);
  }
  if (env.DATABASE_URL && !(URL.canParse(env.DATABASE_URL) && ['postgres:', 'postgresql:'].includes(new URL(env.DATABASE_URL).protocol))) {
    throw new Error('DATABASE_URL must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
  }
  if (env.OIDC_ISSUER) {
    const issuer = URL.canParse(env.OIDC_ISSUER) ? new URL(env.OIDC_ISSUER) : undefined;
    if (!issuer || !/^https?:$/.test(issuer.protocol)) throw new Error(`OIDC_ISSUER must be an https:// URL; got "${env.OIDC_ISSUER}"`);
    if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
      throw new Error(`OIDC_ISSUER must use https:// (plain http:// is accepted only on loopback); got "${env.OIDC_ISSUER}"`);
    }
  }
  if (env.OIDC_ISSUER && !env.OIDC_AUDIENCE) {
    throw new Error('OIDC_AUDIENCE must be set when OIDC_ISSUER is (the client id tokens must be issued for)');
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && !/^\S{32,}$/.test(metricsToken)) {
    throw new Error('METRICS_TOKEN must be at least 32 characters without spaces (e.g. openssl rand -hex 32)');
  }
  if (env.INNTAK_DEV_ISSUER !== undefined && !['', '0', '1'].includes(env.INNTAK_DEV_ISSUER)) {
    throw new Error(`INNTAK_DEV_ISSUER must be 1 (on) or 0 (off); got "${env.INNTAK_DEV_ISSUER}"`);
  }
  const devIssuerWanted = env.INNTAK_DEV_ISSUER === '1';
  // The development issuer signs for anyone who can read the data directory: it is trusted only
  // by an API nobody else can reach. Asked for, it makes the default address loopback.
  const devIssuerRefused =
    devIssuerWanted && host !== undefined && !isLoopbackHost(host) ? `HOST=${host} is not a loopback address; development tokens are refused` : undefined;
  const devIssuer = devIssuerWanted && !devIssuerRefused ? { dataDir: env.INNTAK_DATA_DIR || `${REPO_ROOT}.data` } : undefined;
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    port,
    host: host ?? (devIssuer ? '127.0.0.1' : undefined),
    devIssuer,
    devIssuerRefused,
    oidcIssuer: env.OIDC_ISSUER || undefined,
    oidcAudience: env.OIDC_AUDIENCE || undefined,
    bodyLimitBytes: bodyLimit(env.BODY_LIMIT ?? '25mb'),
    logLevel,
    baseUrl,
    slowRequestMs: 200,
    slowQueryMs: 100,
    realtime: {
      maxQueue: integer(env.REALTIME_MAX_QUEUE ?? '1000', 'REALTIME_MAX_QUEUE', 1, 1_000_000),
      initialSync: {
        collections: integer(env.REALTIME_SYNC_COLLECTIONS ?? '50', 'REALTIME_SYNC_COLLECTIONS', 0, 10_000),
        nodesPerCollection: integer(env.REALTIME_SYNC_NODES ?? '20', 'REALTIME_SYNC_NODES', 0, 10_000),
      },
    },
    metricsToken,
    storageDir: usableStorageDir(env.STORAGE_DIR || `${REPO_ROOT}.data/media`),
    intakePoolSize: integer(env.INTAKE_POOL_SIZE ?? '4', 'INTAKE_POOL_SIZE', 1, 100),
    readsPerCaller: integer(env.READ_CONCURRENCY_PER_CALLER ?? '4', 'READ_CONCURRENCY_PER_CALLER', 1, 1000),
    trustProxy: trustProxy(env.TRUST_PROXY),
    publicPages: {
      searchConcurrency: integer(env.PUB_SEARCH_CONCURRENCY ?? '4', 'PUB_SEARCH_CONCURRENCY', 1, 100),
      searchesPerMinute: integer(env.PUB_SEARCHES_PER_MINUTE ?? '30', 'PUB_SEARCHES_PER_MINUTE', 1, 10_000),
      abWindowHours: integer(env.AB_CLIENT_WINDOW_HOURS ?? '24', 'AB_CLIENT_WINDOW_HOURS', 1, 24 * 30),
      abClientsPerAddress: integer(env.AB_CLIENTS_PER_ADDRESS ?? '16', 'AB_CLIENTS_PER_ADDRESS', 1, 10_000),
    },
    speech: {
      maxTextChars: integer(env.TTS_MAX_TEXT_CHARS ?? String(DEFAULT_SPEECH_LIMITS.maxTextChars), 'TTS_MAX_TEXT_CHARS', 1, SPEECH_MAX_CHARS),
      maxAudioSeconds: integer(env.TTS_MAX_AUDIO_SECONDS ?? String(DEFAULT_SPEECH_LIMITS.maxAudioSeconds), 'TTS_MAX_AUDIO_SECONDS', 1, 86_400),
      jobsPerPerson: integer(env.TTS_JOBS_PER_PERSON ?? String(DEFAULT_TTS_JOBS_PER_PERSON), 'TTS_JOBS_PER_PERSON', 1, 1000),
      collectionMediaBytes: parseSize(env.MEDIA_BYTES_PER_COLLECTION ?? '1gb', 'MEDIA_BYTES_PER_COLLECTION'),
    },
    orchestrationsPerPerson: integer(env.ORCHESTRATIONS_PER_PERSON ?? '100', 'ORCHESTRATIONS_PER_PERSON', 1, 1_000_000),
  };
}

/**
 * TRUST_PROXY: a hop count, or comma-separated addresses, subnets or Express's names
 * (loopback, linklocal, uniquelocal). "true" would believe any X-Forwarded-For a client sends,
 * which makes every per-client limit a suggestion: refused.
 */
function trustProxy(raw: string | undefined): number | string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+$/.test(raw)) return integer(raw, 'TRUST_PROXY', 1, 10);
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.every((p) => /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i.test(p) && /[0-9a-z]/i.test(p))) return parts.join(',');
  throw new Error(`TRUST_PROXY must be a hop count (1–10) or addresses/subnets of your proxies (e.g. loopback or 10.0.0.0/8); got "${raw}"`);
}

/** Digits only: "", "8.08e3" and "0x1f90" are mistakes, not ports (Number() would take them). */
function portNumber(raw: string, name: string): number {
  const value = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 0 && value <= 65535)) throw new Error(`${name} must be a port number from 0 to 65535; got "${raw}"`);
  return value;
}

function bodyLimit(raw: string): number {
  const bytes = parseSize(raw, 'BODY_LIMIT');
  if (bytes < 1 || bytes > parseSize(MAX_BODY_LIMIT, 'BODY_LIMIT')) throw new Error(`BODY_LIMIT must be from 1 byte to ${MAX_BODY_LIMIT}; got "${raw}"`);
  return bytes;
}

export function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '::1', '[::1]'].includes(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function integer(raw: string, name: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}; got "${raw}"`);
  }
  return value;
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** "25mb", "512kb" or a plain byte count. */
export function parseSize(raw: string, name: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(raw);
  if (!match) throw new Error(`${name} must be a size like 25mb, 512kb or 1048576; got "${raw}"`);
  return Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!);
}
