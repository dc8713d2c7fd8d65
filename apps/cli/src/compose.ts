import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import type { Logger } from '@inntak/core';
import type { Actor } from '@inntak/access';
import pg from 'pg';
import { connectionProblem, openDatabase, type Db } from '@inntak/postgres/database';
import type { CliConfig } from './config.js';

/**
 * The CLI's composition root: the only file besides main.ts that imports @inntak/postgres, kysely
 * or pg. Commands (commands/*.ts) get `CliServices`, the domain use cases bound to their stores
 * here (as the API's composition root binds them); they never see a query. The operator at a
 * shell is the CLI's actor: commands that act as someone pass OPERATOR, and the orchestration
 * commands, which never act as anyone else, have it bound here.
 *
 * This file loads only the pool (kysely and pg, which every command here needs). Every domain
 * package and adapter is imported when a command first calls an operation that needs it: one
 * call runs one command, and loading every adapter (kysely's stores, graphile-worker, the
 * orchestration engine, the media decoders) took most of a second of each call (docs/cli.md,
 * "Speed").
 */
export type CliDatabase = Db;

const access = () => import('@inntak/access');
const abTesting = () => import('@inntak/ab-testing');
const files = () => import('@inntak/files');
const intake = () => import('@inntak/intake');
const media = () => import('@inntak/media');
const orchestration = () => import('@inntak/orchestration');
const publishing = () => import('@inntak/publishing');
const pgDeliveries = () => import('@inntak/postgres/deliveries');
const pgGraph = () => import('@inntak/postgres/graph');
const pgIntake = () => import('@inntak/postgres/intake');
const pgJobs = () => import('@inntak/postgres/jobs');
const pgMedia = () => import('@inntak/postgres/media');
const pgOrchestration = () => import('@inntak/postgres/orchestration');
const pgPublishing = () => import('@inntak/postgres/publishing');
const pgStudio = () => import('@inntak/postgres/studio');

/** A use case of a store, both loaded when first called, with the store bound. */
const over =
  <S, A extends unknown[], R>(load: () => Promise<readonly [S, (store: S, ...args: A) => R]>) =>
  async (...args: A): Promise<Awaited<R>> => {
    const [store, fn] = await load();
    return await fn(store, ...args);
  };

/** A use case of a store and the operator as actor, loaded when first called, with both bound. */
const asOperator =
  <S, A extends unknown[], R>(load: () => Promise<readonly [S, (store: S, actor: Actor, ...args: A) => R]>) =>
  async (...args: A): Promise<Awaited<R>> => {
    const [store, fn] = await load();
    return await fn(store, (await access()).OPERATOR, ...args);
  };

/** A function of the database (a lookup that is no use case), loaded when first called. */
const on =
  <A extends unknown[], R>(db: Db, load: () => Promise<(db: Db, ...args: A) => R>) =>
  async (...args: A): Promise<Awaited<R>> =>
    await (await load())(db, ...args);

/**
 * The settings the CLI's use cases take, read from its config module (config.ts) and bound to
 * them here: a command never passes a setting on. Absent (tests): the use case's default, and
 * the commands that need STORAGE_DIR refuse.
 */
export type CliSettings = Pick<CliConfig, 'orchestrationsPerPerson' | 'storageDir' | 'uploads'>;

export function cliServices(db: Db, settings: Partial<CliSettings> = {}) {
  const storageDir = (): string => {
    if (settings.storageDir === undefined) throw new Error('STORAGE_DIR is not known to this command');
    return settings.storageDir;
  };
  const uploads = async () => settings.uploads ?? (await media()).DEFAULT_UPLOAD_LIMITS;
  const graph = async () => new (await pgGraph()).PostgresGraphStore(db);
  const webhooks = async () => new (await pgIntake()).PostgresWebhookAdminStore(db);
  const deliveries = async () => new (await pgDeliveries()).PostgresDeliveriesStore(db);
  const orchestrations = async () => new (await pgOrchestration()).PostgresOrchestrationStore(db);
  const publishingStore = async () => new (await pgPublishing()).PostgresPublishingStore(db);
  const directory = async () => new (await pgGraph()).PostgresDirectoryReads(db);
  const studio = async () => new (await pgStudio()).PostgresStudioReads(db);
  return {
    nodeKindOf: on(db, async () => (await pgGraph()).nodeKindOf),
    personOfIdentity: on(db, async () => (await pgGraph()).personOfIdentity),
    createPerson: over(async () => [await graph(), (await access()).createPerson] as const),
    createCollection: over(async () => [await graph(), (await access()).createCollection] as const),
    grantAccess: over(async () => [await graph(), (await access()).grantAccess] as const),
    listPersons: over(async () => [await directory(), (await access()).listPersons] as const),
    listCollections: over(async () => [await directory(), (await access()).listCollections] as const),
    createWebhook: asOperator(async () => [await webhooks(), (await intake()).createWebhook] as const),
    listWebhooks: over(async () => [await webhooks(), (await intake()).listWebhooks] as const),
    setWebhookTemplate: over(async () => [await webhooks(), (await intake()).setWebhookTemplate] as const),
    rotateWebhookToken: over(async () => [await webhooks(), (await intake()).rotateWebhookToken] as const),
    endTokenGrace: over(async () => [await webhooks(), (await intake()).endTokenGrace] as const),
    deleteWebhook: over(async () => [await webhooks(), (await intake()).deleteWebhook] as const),
    listDeliveries: over(async () => [await deliveries(), (await intake()).listDeliveries] as const),
    setWebhookSecret: over(async () => [await deliveries(), (await intake()).setWebhookSecret] as const),
    rerenderWebhook: asOperator(async () => [await deliveries(), (await intake()).rerenderWebhook] as const),
    replayDelivery: over(async () => [await deliveries(), (await intake()).replayDelivery] as const),
    addCollectionOrchestration: async (input: Parameters<Awaited<ReturnType<typeof orchestration>>['addCollectionOrchestration']>[1]) =>
      (await orchestration()).addCollectionOrchestration(await orchestrations(), input, settings.orchestrationsPerPerson),
    updateOrchestration: asOperator(async () => [await orchestrations(), (await orchestration()).updateOrchestration] as const),
    setOrchestrationEnabled: asOperator(async () => [await orchestrations(), (await orchestration()).setOrchestrationEnabled] as const),
    deleteOrchestration: asOperator(async () => [await orchestrations(), (await orchestration()).deleteOrchestration] as const),
    runOrchestration: asOperator(async () => [await orchestrations(), (await orchestration()).runOrchestration] as const),
    rerunOrchestration: asOperator(async () => [await orchestrations(), (await orchestration()).rerunOrchestration] as const),
    listOrchestrationRuns: async (id: string, limit: number) => (await orchestration()).listOrchestrationRuns(await orchestrations(), (await access()).OPERATOR, id, { limit }),
    setOrchestrationSecret: asOperator(async () => [await orchestrations(), (await orchestration()).setOrchestrationSecret] as const),
    createPublication: asOperator(async () => [await publishingStore(), (await publishing()).createPublication] as const),
    publishArticle: over(async () => [await publishingStore(), (await publishing()).publishArticle] as const),
    runAbEvaluation: async () => (await abTesting()).runAbEvaluation(await publishingStore()),
    abResults: over(async () => [new (await pgPublishing()).PostgresAbResults(db), (await abTesting()).abResults] as const),
    queueTts: async (payload: { node_id: string; voice?: string; rate?: number }) => (await pgJobs()).enqueueJob(db, 'tts_generate', payload, { maxAttempts: 3 }),
    getJob: on(db, async () => (await pgJobs()).getJob),
    rotateServerSecret: on(db, async () => (await pgGraph()).rotateServerSecret),
    mediaOfJob: on(db, async () => (await pgMedia()).mediaOfJob),
    /** The most any upload may be (UPLOAD_MAX_*_BYTES): `media add` does not read a larger file. */
    largestUpload: async () => {
      const limits = await uploads();
      return Math.max(limits.audio, limits.image, limits.video);
    },
    /** One file into a collection as POST /media takes it, as the operator. */
    addMedia: async (input: { collection_id: string; bytes: Uint8Array; title?: string | null }) =>
      (await media()).uploadMedia({ store: new (await pgMedia()).PostgresMediaStore(db), files: new (await files()).LocalFileStore(storageDir()), limits: await uploads() }, (await access()).OPERATOR, input),
    /** The console's bounded reads (GET /studio/publikasjoner, /studio/orkestreringer), as the actor given. */
    listPublications: async (actor: Actor, limit: number) => (await studio()).publications(actor, limit),
    listOrchestrations: async (actor: Actor, limit: number) => (await studio()).orchestrations(actor, limit),
    prune: async (options: { dryRun: boolean }) => {
      const dir = storageDir();
      const [{ runPrune }, { postgresPruneCatalog }, { LocalFileStore, StatfsDiskProbe }] = await Promise.all([media(), pgMedia(), files()]);
      return runPrune({ catalog: postgresPruneCatalog(db), files: new LocalFileStore(dir), probe: new StatfsDiskProbe(), storageDir: dir }, { ...options, trigger: 'cli' });
    },
  };
}
export type CliServices = ReturnType<typeof cliServices>;

/** `inntak migrate`, `npm start`: db/migrations and graphile-worker's schema (loaded only for them). */
export async function migrate(url: string) {
  return (await import('@inntak/postgres')).migrate(url);
}

export interface CommandDatabase {
  url: string;
  services: CliServices;
  /** Closes the pool, then stops the embedded server if this process started it. */
  close(): Promise<void>;
}

/**
 * The database a command works on, as one pool of at most two connections whose first one has
 * answered `select 1` and then serves the command (one connection, where a probe and then a
 * pool took two). DATABASE_URL when set (it must answer within 5 s, or the command fails naming
 * it); otherwise the embedded PostgreSQL under INNTAK_DATA_DIR — reused when another process (a
 * running `npm start`) already serves it, started (and migrated) here when not.
 */
export async function openCommandDatabase(config: CliConfig, logger: Logger): Promise<CommandDatabase> {
  const open = async (url: string) => {
    const handle = openDatabase({ connectionString: url, logger, max: 2, timeouts: { connectMs: 5000 } });
    try {
      await handle.pool.query('select 1');
      return { handle, problem: undefined };
    } catch (err) {
      await handle.close().catch(() => {});
      return { handle, problem: connectionProblem(err) };
    }
  };
  const ready = (url: string, handle: Awaited<ReturnType<typeof open>>['handle'], stop: () => Promise<void> = async () => {}): CommandDatabase => ({
    url,
    services: cliServices(handle.db, config),
    close: async () => {
      await handle.close();
      await stop();
    },
  });
  if (config.databaseUrl) {
    const { handle, problem } = await open(config.databaseUrl);
    if (problem) throw new Error(`DATABASE_URL (${withoutPassword(config.databaseUrl)}): ${problem}`);
    return ready(config.databaseUrl, handle);
  }
  const shared = await open(embeddedUrl(config));
  if (!shared.problem) return ready(embeddedUrl(config), shared.handle);
  const server = await startEmbedded(config, logger);
  const own = await open(server.url);
  if (own.problem) {
    await server.release();
    throw new Error(`the embedded PostgreSQL does not answer: ${own.problem}`);
  }
  return ready(server.url, own.handle, server.release);
}

export interface ResolvedDatabase {
  url: string;
  /** Stops the embedded server if this process started it; a no-op otherwise. */
  release(): Promise<void>;
  /** Settles if the embedded server this process started stops (never for DATABASE_URL). */
  exited: Promise<void>;
}

const never = new Promise<void>(() => {});

/**
 * For `npm start` (which hands the URL to the API and the worker): DATABASE_URL when set (it must
 * answer now, or the command fails naming it); otherwise the embedded PostgreSQL under
 * INNTAK_DATA_DIR — reused when another process already serves it, started here (in a child
 * process that stops when released, or when this process goes away) when not.
 */
export async function resolveDatabase(config: CliConfig, logger: Logger): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    const problem = await unanswered(config.databaseUrl, 5000);
    if (problem) throw new Error(`DATABASE_URL (${withoutPassword(config.databaseUrl)}): ${problem}`);
    return { url: config.databaseUrl, release: async () => {}, exited: never };
  }
  const url = embeddedUrl(config);
  if ((await unanswered(url, 1000)) === undefined) return { url, release: async () => {}, exited: never };
  return startEmbedded(config, logger);
}

const embeddedUrl = (config: CliConfig) => `postgres://postgres:postgres@127.0.0.1:${config.embeddedPort}/inntak`;

/** Starts the embedded server in a child process and migrates it: the embedded database is ours to keep current. */
async function startEmbedded(config: CliConfig, logger: Logger): Promise<ResolvedDatabase> {
  usableDataDir(config.dataDir);
  logger.info('starting embedded PostgreSQL', { data_dir: config.dataDir, port: config.embeddedPort });
  const { migrate: migrateDatabase, spawnEmbeddedPostgres } = await import('@inntak/postgres');
  const server = await spawnEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPort, database: 'inntak' }).catch((err: Error) => {
    // As root the library runs PostgreSQL as the OS user `postgres`, which must reach the folder.
    const hint = /permission denied/i.test(err.message) ? '; the OS user postgres must be able to open every folder on the way to INNTAK_DATA_DIR' : '';
    throw new Error(`the embedded PostgreSQL (INNTAK_DATA_DIR=${config.dataDir}, EMBEDDED_PG_PORT=${config.embeddedPort}) did not start: ${err.message}${hint}`, { cause: err });
  });
  // An operator's DATABASE_URL is migrated only by `inntak migrate` or `npm start`.
  await migrateDatabase(server.url);
  return { url: server.url, release: () => server.stop(), exited: server.exited };
}

/** Fails with the variable's name rather than letting PostgreSQL's initdb fail (or wait) later. */
function usableDataDir(dir: string): void {
  try {
    makeDirectory(dir);
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`INNTAK_DATA_DIR must be a directory this user can create and write; ${dir}: ${reason}`, { cause: err });
  }
}

/** mkdir -p one level at a time: Node's recursive mkdirSync never returns for a path under /proc. */
function makeDirectory(dir: string): void {
  const parts = dir.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const path = parts.slice(0, i).join(sep) || sep;
    if (!existsSync(path)) mkdirSync(path);
  }
}

/** undefined when the server answers `select 1`, else why not. */
async function unanswered(url: string, timeoutMs: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return connectionProblem(err);
  } finally {
    await client.end().catch(() => {});
  }
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
