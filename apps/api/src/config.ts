/**
 * The API's one config module: nothing else reads process.env. Validated at start-up so a bad
 * setting fails fast with a message naming it.
 */
export interface ApiConfig {
  /** Absent: the caller (npm start / CLI) starts an embedded PostgreSQL and sets it. */
  databaseUrl: string | undefined;
  port: number;
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
  /** STORAGE_DIR: where media files live; absent: .data/media in the repository. */
  storageDir: string | undefined;
}

const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const port = integer(env.PORT ?? '8080', 'PORT', 0, 65535);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${logLevel}"`);
  const baseUrl = (env.BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`BASE_URL must be an absolute URL; got "${env.BASE_URL}"`);
  }
  if (env.OIDC_ISSUER && !env.OIDC_AUDIENCE) {
    throw new Error('OIDC_AUDIENCE must be set when OIDC_ISSUER is (the client id tokens must be issued for)');
  }
  const metricsToken = env.METRICS_TOKEN || undefined;
  if (metricsToken !== undefined && !/^\S{32,}$/.test(metricsToken)) {
    throw new Error('METRICS_TOKEN must be at least 32 characters without spaces (e.g. openssl rand -hex 32)');
  }
  return {
    databaseUrl: env.DATABASE_URL || undefined,
    port,
    oidcIssuer: env.OIDC_ISSUER || undefined,
    oidcAudience: env.OIDC_AUDIENCE || undefined,
    bodyLimitBytes: parseSize(env.BODY_LIMIT ?? '25mb', 'BODY_LIMIT'),
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
    storageDir: env.STORAGE_DIR || undefined,
  };
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
