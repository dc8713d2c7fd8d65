import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { envVar } from '@inntak/core';
import { usableStorageDir } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, DEFAULT_TTS_JOBS_PER_PERSON, SPEECH_MAX_CHARS } from '@inntak/media';
import type { OrchestrationLimits } from '@inntak/orchestration';

/**
 * The API's one config module: nothing else reads process.env. Validated at start-up so a bad
 * setting fails fast with a message naming it. A use case's settings are grouped as the options
 * object it takes (e.g. `orchestration`, `speech`, `uploads`), so the composition root
 * (api-server.ts) hands that object on as it is.
 */
export interface ApiConfig {
  /** Absent: the caller (npm start / CLI) starts an embedded PostgreSQL and sets it. */
  databaseUrl: string | undefined;
  /** READ_DATABASE_URL: streaming replicas for reads (docs/scaling.md); empty: none. */
  readDatabaseUrls: string[];
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
  /** The intake spool (issue 37): SPOOL_DIR (SQLite, default <data dir>/spool) or INTAKE_SPOOL_URL (nats://…), SPOOL_MAX_BYTES; SPOOL_DIR=off: none. */
  intakeSpool: { dir: string; url: string | undefined; replicas: number; maxBytes: number } | undefined;
  /** INTAKE_GROUP_COMMIT: intake writes one transaction holds at most (1: each its own). */
  intakeGroupCommit: number;
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
  /** ORCHESTRATIONS_PER_PERSON, ORCHESTRATION_RUNS_PER_PERSON: the orchestration use cases' per-person caps (docs/orchestration.md). */
  orchestration: OrchestrationLimits;
  /** The console at /studio (docs/studio.md). */
  studio: {
    /** OIDC_CLIENT_ID: the console's client at OIDC_ISSUER; absent: OpenID login is not offered. */
    clientId: string | undefined;
    /** OIDC_CLIENT_SECRET: absent: a public client (PKCE only). */
    clientSecret: string | undefined;
    /** STUDIO_SESSION_HOURS: how long a console session lasts after login. */
    sessionHours: number;
  };
  /** MEDIA_URL_SECRET: the HMAC key of signed media links (docs/media.md); absent: a random key per process. */
  mediaUrlSecret: string | undefined;
  /** What POST /media takes (docs/media.md, "Upload"): UPLOAD_MAX_{AUDIO,IMAGE,VIDEO}_BYTES, MEDIA_BYTES_PER_COLLECTION, MEDIA_UPLOAD_BYTES_PER_PERSON. */
  uploads: { audio: number; image: number; video: number; collectionMediaBytes: number; personUploadBytes: number };
}

/** Express buffers a body in memory; more than this per request is a typo, not a setting. */
export const MAX_BODY_LIMIT = '100mb';
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The API's settings, one zod piece per variable (packages/core config-schema), then the rules across them. */
const apiEnv = z
  .object({
    DATABASE_URL: envVar.postgresUrl(),
    READ_DATABASE_URL: z
      .string()
      .optional()
      .transform((raw, ctx) => {
        const urls = (raw ?? '').split(',').map((u) => u.trim()).filter(Boolean);
        const bad = urls.find((u) => !envVar.isPostgresUrl(u));
        if (bad === undefined) return urls;
        ctx.addIssue({ code: 'custom', message: 'must be postgres:// or postgresql:// URLs, comma-separated' });
        return z.NEVER;
      }),
    PORT: envVar.port(8080),
    HOST: envVar.text(),
    LOG_LEVEL: envVar.logLevel(),
    BASE_URL: envVar.httpUrl(),
    OIDC_ISSUER: envVar.text().superRefine(oidcIssuer),
    OIDC_AUDIENCE: envVar.text(),
    METRICS_TOKEN: envVar.text().refine((token) => token === undefined || /^\S{32,}$/.test(token), {
      message: 'must be at least 32 characters without spaces (e.g. openssl rand -hex 32)',
    }),
    // Several API processes behind one address must share it, or a link works only where it was made.
    MEDIA_URL_SECRET: envVar.text().refine((secret) => secret === undefined || /^\S{32,}$/.test(secret), {
      message: 'must be at least 32 characters without spaces (e.g. openssl rand -hex 32)',
    }),
    INNTAK_DEV_ISSUER: envVar.flag(),
    INNTAK_DATA_DIR: envVar.text(),
    BODY_LIMIT: envVar.size('25mb', MAX_BODY_LIMIT),
    REALTIME_MAX_QUEUE: envVar.integer(1000, 1, 1_000_000),
    REALTIME_SYNC_COLLECTIONS: envVar.integer(50, 0, 10_000),
    REALTIME_SYNC_NODES: envVar.integer(20, 0, 10_000),
    STORAGE_DIR: envVar.text(),
    INTAKE_POOL_SIZE: envVar.integer(4, 1, 100),
    INTAKE_GROUP_COMMIT: envVar.integer(64, 1, 1000),
    SPOOL_DIR: envVar.text(),
    INTAKE_SPOOL_URL: envVar.text().refine((url) => url === undefined || /^nats:\/\/\S+$/.test(url), { message: 'must be nats://host:port[,nats://…]' }),
    INTAKE_SPOOL_REPLICAS: envVar.integer(1, 1, 5),
    SPOOL_MAX_BYTES: envVar.size('1gb'),
    READ_CONCURRENCY_PER_CALLER: envVar.integer(4, 1, 1000),
    TRUST_PROXY: z.string().optional().transform(trustProxy),
    PUB_SEARCH_CONCURRENCY: envVar.integer(4, 1, 100),
    PUB_SEARCHES_PER_MINUTE: envVar.integer(30, 1, 10_000),
    AB_CLIENT_WINDOW_HOURS: envVar.integer(24, 1, 24 * 30),
    AB_CLIENTS_PER_ADDRESS: envVar.integer(16, 1, 10_000),
    TTS_MAX_TEXT_CHARS: envVar.integer(DEFAULT_SPEECH_LIMITS.maxTextChars, 1, SPEECH_MAX_CHARS),
    TTS_MAX_AUDIO_SECONDS: envVar.integer(DEFAULT_SPEECH_LIMITS.maxAudioSeconds, 1, 86_400),
    TTS_JOBS_PER_PERSON: envVar.integer(DEFAULT_TTS_JOBS_PER_PERSON, 1, 1000),
    MEDIA_BYTES_PER_COLLECTION: envVar.size('1gb'),
    MEDIA_UPLOAD_BYTES_PER_PERSON: envVar.size('10gb'),
    // An upload is held in memory while it is checked (POST /media): the limits bound that too.
    UPLOAD_MAX_AUDIO_BYTES: envVar.size('100mb', '2gb'),
    UPLOAD_MAX_IMAGE_BYTES: envVar.size('20mb', '2gb'),
    UPLOAD_MAX_VIDEO_BYTES: envVar.size('200mb', '2gb'),
    ORCHESTRATIONS_PER_PERSON: envVar.integer(100, 1, 1_000_000),
    ORCHESTRATION_RUNS_PER_PERSON: envVar.integer(5, 1, 1000),
    OIDC_CLIENT_ID: envVar.text(),
    OIDC_CLIENT_SECRET: envVar.text(),
    STUDIO_SESSION_HOURS: envVar.integer(8, 1, 24 * 30),
  })
  .superRefine((env, ctx) => {
    if (env.OIDC_ISSUER && !env.OIDC_AUDIENCE) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_AUDIENCE'], message: 'must be set when OIDC_ISSUER is (the client id tokens must be issued for)' });
    }
    if (env.OIDC_CLIENT_ID && !env.OIDC_ISSUER) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_ID'], message: 'needs OIDC_ISSUER (the provider the console logs in with)' });
    }
    if (env.OIDC_CLIENT_SECRET && !env.OIDC_CLIENT_ID) {
      ctx.addIssue({ code: 'custom', path: ['OIDC_CLIENT_SECRET'], message: 'needs OIDC_CLIENT_ID' });
    }
  })
  .transform((env): ApiConfig => {
    // The development issuer signs for anyone who can read the data directory: it is trusted only
    // by an API nobody else can reach. Asked for, it makes the default address loopback.
    const devIssuerRefused =
      env.INNTAK_DEV_ISSUER && env.HOST !== undefined && !isLoopbackHost(env.HOST) ? `HOST=${env.HOST} is not a loopback address; development tokens are refused` : undefined;
    const devIssuer = env.INNTAK_DEV_ISSUER && !devIssuerRefused ? { dataDir: env.INNTAK_DATA_DIR ?? `${REPO_ROOT}.data` } : undefined;
    return {
      databaseUrl: env.DATABASE_URL,
      readDatabaseUrls: env.READ_DATABASE_URL,
      port: env.PORT,
      host: env.HOST ?? (devIssuer ? '127.0.0.1' : undefined),
      devIssuer,
      devIssuerRefused,
      oidcIssuer: env.OIDC_ISSUER,
      oidcAudience: env.OIDC_AUDIENCE,
      bodyLimitBytes: env.BODY_LIMIT,
      logLevel: env.LOG_LEVEL,
      baseUrl: env.BASE_URL ?? `http://localhost:${env.PORT}`,
      slowRequestMs: 200,
      slowQueryMs: 100,
      realtime: {
        maxQueue: env.REALTIME_MAX_QUEUE,
        initialSync: { collections: env.REALTIME_SYNC_COLLECTIONS, nodesPerCollection: env.REALTIME_SYNC_NODES },
      },
      metricsToken: env.METRICS_TOKEN,
      storageDir: usableStorageDir(env.STORAGE_DIR ?? `${REPO_ROOT}.data/media`),
      intakePoolSize: env.INTAKE_POOL_SIZE,
      intakeGroupCommit: env.INTAKE_GROUP_COMMIT,
      intakeSpool:
        env.SPOOL_DIR === 'off' && !env.INTAKE_SPOOL_URL
          ? undefined
          : { dir: env.SPOOL_DIR ?? `${env.INNTAK_DATA_DIR ?? `${REPO_ROOT}.data`}/spool`, url: env.INTAKE_SPOOL_URL, replicas: env.INTAKE_SPOOL_REPLICAS, maxBytes: env.SPOOL_MAX_BYTES },
      readsPerCaller: env.READ_CONCURRENCY_PER_CALLER,
      trustProxy: env.TRUST_PROXY,
      publicPages: {
        searchConcurrency: env.PUB_SEARCH_CONCURRENCY,
        searchesPerMinute: env.PUB_SEARCHES_PER_MINUTE,
        abWindowHours: env.AB_CLIENT_WINDOW_HOURS,
        abClientsPerAddress: env.AB_CLIENTS_PER_ADDRESS,
      },
      speech: {
        maxTextChars: env.TTS_MAX_TEXT_CHARS,
        maxAudioSeconds: env.TTS_MAX_AUDIO_SECONDS,
        jobsPerPerson: env.TTS_JOBS_PER_PERSON,
        collectionMediaBytes: env.MEDIA_BYTES_PER_COLLECTION,
      },
      orchestration: { perPerson: env.ORCHESTRATIONS_PER_PERSON, runsPerPerson: env.ORCHESTRATION_RUNS_PER_PERSON },
      studio: { clientId: env.OIDC_CLIENT_ID, clientSecret: env.OIDC_CLIENT_SECRET, sessionHours: env.STUDIO_SESSION_HOURS },
      mediaUrlSecret: env.MEDIA_URL_SECRET,
      uploads: { audio: env.UPLOAD_MAX_AUDIO_BYTES, image: env.UPLOAD_MAX_IMAGE_BYTES, video: env.UPLOAD_MAX_VIDEO_BYTES, collectionMediaBytes: env.MEDIA_BYTES_PER_COLLECTION, personUploadBytes: env.MEDIA_UPLOAD_BYTES_PER_PERSON },
    };
  });

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return envVar.parseEnv(apiEnv, env);
}

/** OIDC_ISSUER: https://, or plain http:// on loopback only. */
function oidcIssuer(raw: string | undefined, ctx: z.RefinementCtx<string | undefined>): void {
  if (raw === undefined) return;
  const issuer = URL.canParse(raw) ? new URL(raw) : undefined;
  if (!issuer || !/^https?:$/.test(issuer.protocol)) ctx.addIssue({ code: 'custom', message: `must be an https:// URL; got "${raw}"` });
  else if (issuer.protocol === 'http:' && !isLoopbackHost(issuer.hostname)) {
    ctx.addIssue({ code: 'custom', message: `must use https:// (plain http:// is accepted only on loopback); got "${raw}"` });
  }
}

/**
 * TRUST_PROXY: a hop count, or comma-separated addresses, subnets or Express's names
 * (loopback, linklocal, uniquelocal). "true" would believe any X-Forwarded-For a client sends,
 * which makes every per-client limit a suggestion: refused.
 */
function trustProxy(raw: string | undefined, ctx: z.RefinementCtx<string | undefined>): number | string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const hops = /^\d+$/.test(raw) ? Number(raw) : undefined;
  if (hops !== undefined && hops >= 1 && hops <= 10) return hops;
  const parts = raw.split(',').map((p) => p.trim());
  if (hops === undefined && parts.every((p) => /^(loopback|linklocal|uniquelocal|[0-9a-f.:]+(\/\d{1,3})?)$/i.test(p) && /[0-9a-z]/i.test(p))) return parts.join(',');
  ctx.addIssue({ code: 'custom', message: `must be a hop count (1–10) or addresses/subnets of your proxies (e.g. loopback or 10.0.0.0/8); got "${raw}"` });
  return z.NEVER;
}

export function isLoopbackHost(hostname: string): boolean {
  return ['localhost', '::1', '[::1]'].includes(hostname) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** "25mb", "512kb" or a plain byte count. */
export function parseSize(raw: string, name: string): number {
  const bytes = envVar.sizeInBytes(raw);
  if (bytes === undefined) throw new Error(`${name} must be a size like 25mb, 512kb or 1048576; got "${raw}"`);
  return bytes;
}
