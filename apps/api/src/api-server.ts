import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import type { Logger } from '@inntak/core';
import type { ChangeFeed, ChangeSubscription, TokenVerifier } from '@inntak/access';
import { CachedLookupStore, GroupCommit, SpoolingIntakeStore, WEBHOOK_TARGET_CHANNELS, WebhookTargetCache, type Spool } from '@inntak/intake';
import { cachedLiveRoomStatus } from '@inntak/jobs';
import { cachedDatabaseStats, isDatabaseUnavailable, type DatabaseHandle, type ReadReplicas } from '@inntak/postgres';
import { sharedKey, PostgresGraphStore, PostgresIdentityDirectory, PostgresNodeQueryStore, queryCursorKey } from '@inntak/postgres/graph';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { PostgresIntakeStore, PostgresWebhookAdminStore } from '@inntak/postgres/intake';
import { PostgresDeliveriesStore } from '@inntak/postgres/deliveries';
import { LocalFileStore } from '@inntak/files';
import { NatsSpool, SqliteSpool } from '@inntak/spool';
import { PostgresJobAdminStore, PostgresLiveRoomStatus } from '@inntak/postgres/jobs';
import { PostgresMediaStore, postgresMixerFeed } from '@inntak/postgres/media';
import { PostgresChangeFeed } from '@inntak/postgres/realtime';
import { PostgresAbResults, PostgresImpressionStore, PostgresPublishedPages, PostgresPublishingStore, publicationsTouched, recordAbCounts } from '@inntak/postgres/publishing';
import { PostgresStudioReads, PostgresStudioSessionStore } from '@inntak/postgres/studio';
import { AbClientGate, AbRecorder } from '@inntak/ab-testing';
import { DEFAULT_ORCHESTRATION_LIMITS } from '@inntak/orchestration';
import { startPageCache } from './pages/page-cache.js';
import { ClientKeys, SearchLimiter } from './pages/public-clients.js';
import type { ApiConfig } from './config.js';
import { createApp, type AppDeps } from './app.js';
import { RealtimeHub, type RealtimeHubDeps } from './realtime/realtime-hub.js';
import type { StudioSettings } from './console/studio.js';

/**
 * The settings this composition root hands on, named and typed as the config module (config.ts)
 * has them, which documents each: main.ts passes its config as it is, tests and benchmarks name
 * the few they need. Each is read here once and handed to its use case or installer as that
 * one's options object (e.g. `orchestration` → the orchestration routes' caps); absent: the
 * defaults.
 */
export type ApiSettings = Pick<ApiConfig, 'baseUrl' | 'bodyLimitBytes' | 'slowRequestMs'> &
  Partial<Pick<ApiConfig, 'metricsToken' | 'storageDir' | 'intakeGroupCommit' | 'intakeSpool' | 'readsPerCaller' | 'trustProxy' | 'speech' | 'uploads' | 'orchestration' | 'mediaUrlSecret'>> & {
    /** config.ts publicPages; what is absent: the default. */
    publicPages?: Partial<ApiConfig['publicPages']>;
  };

export interface ApiServerOptions extends ApiSettings {
  logger: Logger;
  database: DatabaseHandle;
  /** For the realtime hub's own LISTEN connection. */
  databaseUrl: string;
  verifier: TokenVerifier;
  /** config.ts realtime (tests shorten the listener's back-off). */
  realtime: Pick<RealtimeHubDeps, 'maxQueue' | 'initialSync' | 'listenerBackoffMs'>;
  /** Intake's own pool (INTAKE_POOL_SIZE), so reads cannot starve it; absent: `database`. */
  intakeDatabase?: DatabaseHandle;
  /**
   * READ_DATABASE_URL's replicas, started: /query/nodes, node reads, the published pages and
   * initial_sync read there (docs/scaling.md); absent: everything on `database`.
   */
  readReplicas?: ReadReplicas;
  /** The console's login and session length (main.ts: OIDC_CLIENT_ID, INNTAK_DEV_ISSUER, STUDIO_SESSION_HOURS). */
  studio?: Pick<StudioSettings, 'login' | 'devIssuer' | 'sessionHours'>;
  /** Replaces adapters of the Express app (tests). */
  app?: Partial<AppDeps>;
}

export interface ApiServer {
  server: Server;
  hub: RealtimeHub;
  /** The published pages' dependencies (the page cache, the AB recorder), for tests. */
  publishing: AppDeps['publishing'];
  /** Base URL, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Closes the stream (its sockets are long-lived), then drains HTTP requests. */
  close(): Promise<void>;
}

/**
 * How long a stopping API lets in-flight requests finish before it ends their connections
 * (README, "Running in production"): an upload whose sender stalled, or a connection left
 * half-read, would otherwise keep the process alive after SIGTERM for good (issue 35, finding 10).
 */
export const SHUTDOWN_GRACE_MS = 10_000;

const DEFAULT_STORAGE_DIR = fileURLToPath(new URL('../../../.data/media', import.meta.url));

/** The app's dependencies on PostgreSQL adapters: one wiring for main.ts, the tests and the benchmarks. */
export function postgresAppDeps(
  options: ApiSettings &
    Pick<ApiServerOptions, 'logger' | 'database' | 'verifier' | 'intakeDatabase' | 'readReplicas' | 'studio'> & {
    /** How long the live-room status is cached (spec: 10 s); tests use 0. */
    liveRoomCacheMs?: number;
    /** How often counted AB impressions and clicks are written (default 1 s). */
    abFlushMs?: number;
  },
): AppDeps {
  const { database } = options;
  const limits = options.publicPages ?? {};
  const media = new PostgresMediaStore(database.db);
  const intakeDatabase = options.intakeDatabase ?? database;
  const intakeStore = new PostgresIntakeStore(intakeDatabase, (error) =>
    options.logger.warn('intake change notices not sent', { error: error instanceof Error ? error.message : String(error) }),
  );
  const batch = options.intakeGroupCommit ?? 64;
  const replicas = options.readReplicas;
  return {
    trustProxy: options.trustProxy,
    logger: options.logger,
    // Group commit: writes waiting for a connection of intake's pool go together in one
    // transaction (packages/intake/src/group-commit.ts).
    intakeStore: batch > 1 ? new GroupCommit(intakeStore, { maxInFlight: intakeDatabase.pool.options.max ?? 10, maxBatch: batch }) : intakeStore,
    intakeNoticesSent: () => intakeStore.noticesSent(),
    readsPerCaller: options.readsPerCaller,
    orchestration: options.orchestration ?? DEFAULT_ORCHESTRATION_LIMITS,
    mediaUrlSecret: options.mediaUrlSecret,
    // Keys every process of a fleet must agree on live in the database (issue 38).
    mediaLinkKey: sharedKey(database.db, 'media_link'),
    verifier: options.verifier,
    identities: new PostgresIdentityDirectory(database.db),
    graphStore: new PostgresGraphStore(database.db),
    orchestrationStore: new PostgresOrchestrationStore(database.db),
    baseUrl: options.baseUrl,
    nodeQueries: new PostgresNodeQueryStore(database.db, {}, replicas && ((fn) => replicas.read(fn))),
    readRouter: replicas,
    readPositionKey: sharedKey(database.db, 'read_position'),
    cursorKey: queryCursorKey(database.db),
    databaseStats: cachedDatabaseStats(database.db),
    metricsToken: options.metricsToken,
    databaseReady: async () => {
      await sql`select 1`.execute(database.db);
    },
    bodyLimitBytes: options.bodyLimitBytes,
    slowRequestMs: options.slowRequestMs,
    files: new LocalFileStore(options.storageDir ?? DEFAULT_STORAGE_DIR),
    speech: options.speech,
    ...(options.uploads ? { uploads: options.uploads } : {}),
    publishingStore: new PostgresPublishingStore(database.db),
    abResults: new PostgresAbResults(database.db),
    publishedPages: new PostgresPublishedPages(database.db, replicas && ((fn) => replicas.read(fn, true))),
    webhookAdmin: new PostgresWebhookAdminStore(database.db),
    deliveries: new PostgresDeliveriesStore(database.db),
    // The console's login (OpenID, development form) comes from main.ts or a test through `app`.
    studio: { sessions: new PostgresStudioSessionStore(database.db), reads: new PostgresStudioReads(database.db), ...options.studio },
    media,
    jobAdmin: {
      store: new PostgresJobAdminStore(database.db),
      liveRooms: cachedLiveRoomStatus(new PostgresLiveRoomStatus(database.db), options.liveRoomCacheMs),
      media,
    },
    publishing: {
      recorder: new AbRecorder((rows) => recordAbCounts(database.db, rows), options.logger, { flushMs: options.abFlushMs }),
      ownHost: new URL(options.baseUrl).hostname,
      abGate: new AbClientGate({
        logger: options.logger,
        store: new PostgresImpressionStore(database.db),
        key: sharedKey(database.db, 'ab_impression'),
        windowMs: limits.abWindowHours === undefined ? undefined : limits.abWindowHours * 3600_000,
        clientsPerAddress: limits.abClientsPerAddress,
      }),
      searches: new SearchLimiter({ concurrency: limits.searchConcurrency, perMinute: limits.searchesPerMinute }),
      clients: new ClientKeys(sharedKey(database.db, 'ab_client')),
      visitorKey: sharedKey(database.db, 'ab_visitor'),
    },
  };
}

/**
 * One API instance on PostgreSQL: the Express app and the realtime hub on one http server,
 * listening. main.ts, the tests and the benchmark all start the API through here.
 */
export async function startApiServer(options: ApiServerOptions, port: number, host?: string): Promise<ApiServer> {
  const { database, logger, verifier } = options;
  const deps = { ...postgresAppDeps(options), ...options.app };
  // The published pages' cache lives as long as this server, kept current by the change stream.
  const replicas = options.readReplicas;
  const postgresFeed = new PostgresChangeFeed(database.db, options.databaseUrl, replicas && ((fn) => replicas.read(fn, true)));
  // With the intake spool the API starts while the database is away (issue 37): the streams then wait for it.
  const feed = options.intakeSpool ? patientFeed(postgresFeed, logger) : postgresFeed;
  const pageCache = await startPageCache({ feed, publicationsTouched: (nodeIds, edgeIds, makers) => publicationsTouched(database, nodeIds, edgeIds, makers), logger });
  deps.publishing = { ...deps.publishing, pageCache: pageCache.cache };
  const intake = options.intakeSpool ? await startIntakeSpool(options, options.intakeSpool, deps, feed) : await startTokenCache(deps, feed, logger);
  const app = createApp(deps);
  const server = createServer(app);
  const hub = new RealtimeHub(server, { logger, feed, mixer: postgresMixerFeed(database.db), verifier, identities: deps.identities, ...options.realtime });
  await hub.start();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: unknown) => {
    await hub.stop();
    throw err;
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    hub,
    publishing: deps.publishing,
    url: `http://${host ?? 'localhost'}:${address.port}`,
    async close() {
      await hub.stop();
      // close() stops accepting, lets in-flight requests finish and drops idle keep-alive sockets;
      // what has not finished within the grace is cut off.
      const cutOff = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await new Promise<void>((resolve) => server.close(() => resolve()));
      clearTimeout(cutOff);
      // After the last request: every impression and click counted is written before exit.
      await deps.publishing.recorder.close();
      await pageCache.stop();
      await intake.stop();
      // Answered writes' change notices go out before the pool closes.
      await deps.intakeNoticesSent?.();
    },
  };
}

/**
 * The durable spool behind intake (issue 37): intake's store becomes the spooling store over
 * it, the webhooks it knows are kept current by the change stream, and what a previous run
 * left in the spool is replayed.
 */
async function startIntakeSpool(
  options: ApiServerOptions,
  settings: NonNullable<ApiConfig['intakeSpool']>,
  deps: AppDeps,
  feed: ChangeFeed,
): Promise<{ stop(): Promise<void> }> {
  const { logger } = options;
  const spool: Spool = settings.url
    ? await NatsSpool.open({ url: settings.url, maxBytes: settings.maxBytes, replicas: settings.replicas })
    : new SqliteSpool({ dir: settings.dir, maxBytes: settings.maxBytes });
  const replay = new PostgresIntakeStore(options.intakeDatabase ?? options.database);
  // A changed webhook is read again through the intake's own store (its pool, its prepared statements).
  const targets = new WebhookTargetCache(spool, logger, replay);
  const store = new SpoolingIntakeStore({
    live: deps.intakeStore,
    replay,
    spool,
    targets,
    isUnavailable: isDatabaseUnavailable,
    logger,
  });
  await store.start();
  const changes = subscribeTargets(feed, targets, logger);
  await changes.start();
  deps.intakeStore = store;
  deps.intakeSpool = () => store.snapshot();
  deps.intakeTokenLookups = () => ({ ...targets.lookups });
  logger.info('intake spool ready', { adapter: settings.url ? 'nats' : 'sqlite', known_webhooks: targets.size });
  return {
    async stop() {
      await changes.stop();
      // A changed webhook's read outlives its burst (onBurst does not wait for it): done before the pool closes.
      await targets.settled();
      await store.stop();
      await replay.noticesSent();
      await spool.close();
    },
  };
}

/** The intake's webhook cache kept current by the change stream (docs/deliveries.md#outages). */
function subscribeTargets(feed: ChangeFeed, targets: WebhookTargetCache, logger: Logger): ChangeSubscription {
  return feed.subscribe({
    logger,
    onBurst: (notices) => targets.onBurst(notices),
    onReconnect: () => targets.onReconnect(),
    onLive: (live) => targets.onLive(live),
    // Not access rows or the mixer: five of an intake's seven notices are access rows.
    channels: WEBHOOK_TARGET_CHANNELS,
  });
}

/**
 * Without a spool (SPOOL_DIR=off) the known tokens are still answered from memory, kept current
 * by the change stream as with one (issue 40); the copy is then in memory alone, and a changed
 * webhook is simply forgotten until its next lookup asks the database.
 */
async function startTokenCache(deps: AppDeps, feed: ChangeFeed, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const inMemoryOnly = { keepTargets: async () => {}, forgetTarget: async () => {}, targets: async () => [] };
  const targets = new WebhookTargetCache(inMemoryOnly, logger);
  const changes = subscribeTargets(feed, targets, logger);
  await changes.start();
  deps.intakeStore = new CachedLookupStore(deps.intakeStore, targets);
  deps.intakeTokenLookups = () => ({ ...targets.lookups });
  return { stop: () => changes.stop() };
}

/**
 * A change feed whose subscriptions start even when the database does not answer yet: the
 * first connection is then tried again every second in the background, and the subscriber is
 * told it reconnected (it missed notices) once it is made.
 */
function patientFeed(feed: ChangeFeed, logger: Logger): ChangeFeed {
  return {
    readChanges: (notices) => feed.readChanges(notices),
    initialSync: (callerId, bounds) => feed.initialSync(callerId, bounds),
    subscribe(subscriber) {
      const subscription = feed.subscribe(subscriber);
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const retry = () => {
        timer = setTimeout(() => {
          if (stopped) return;
          subscription.start().then(() => {
            logger.info('change stream connected; the database answers');
            subscriber.onReconnect();
          }, retry);
        }, 1000);
      };
      return {
        async start() {
          try {
            await subscription.start();
          } catch (error) {
            if (!isDatabaseUnavailable(error)) throw error;
            logger.warn('change stream waits for the database', { error: String(error) });
            retry();
          }
        },
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await subscription.stop();
        },
      };
    },
  };
}
