import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import pg from 'pg';
import type { Logger } from '@inntak/core';
import { LocalFileStore, StatfsDiskProbe } from '@inntak/files';
import { createCollection, createPerson, grantAccess, OPERATOR, type Actor } from '@inntak/access';
import { abResults, runAbEvaluation } from '@inntak/ab-testing';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, replayDelivery, rerenderWebhook, rotateWebhookToken, setWebhookSecret, setWebhookTemplate } from '@inntak/intake';
import { runPrune, uploadMedia, type UploadLimits } from '@inntak/media';
import {
  addCollectionOrchestration,
  deleteOrchestration,
  listOrchestrationRuns,
  rerunOrchestration,
  runOrchestration,
  setOrchestrationEnabled,
  setOrchestrationSecret,
  updateOrchestration,
} from '@inntak/orchestration';
import { createPublication, publishArticle } from '@inntak/publishing';
import { connectionProblem, migrate, openDatabase, spawnEmbeddedPostgres, type Db } from '@inntak/postgres';
import { PostgresDeliveriesStore } from '@inntak/postgres/deliveries';
import { nodeKindOf, personOfIdentity, PostgresGraphStore, rotateServerSecret } from '@inntak/postgres/graph';
import { PostgresWebhookAdminStore } from '@inntak/postgres/intake';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { mediaOfJob, PostgresMediaStore, postgresPruneCatalog } from '@inntak/postgres/media';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { PostgresAbResults, PostgresPublishingStore } from '@inntak/postgres/publishing';
import { PostgresStudioReads } from '@inntak/postgres/studio';
import type { CliConfig } from './config.js';

/**
 * The CLI's composition root: the only file besides main.ts that imports @inntak/postgres, kysely
 * or pg. Commands (commands/*.ts) get `CliServices`, the domain use cases bound to their stores
 * here (as the API's composition root binds them); they never see a query. The operator at a
 * shell is the CLI's actor: commands that act as someone pass OPERATOR, and the orchestration
 * commands, which never act as anyone else, have it bound here.
 */
export type CliDatabase = Db;
export { migrate };

/** A function of the database, with the database bound (lookups that are no use case). */
const on =
  <A extends unknown[], R>(db: Db, fn: (db: Db, ...args: A) => R) =>
  (...args: A): R =>
    fn(db, ...args);

/** A use case of a store, with the store bound. */
const over =
  <S, A extends unknown[], R>(store: S, fn: (store: S, ...args: A) => R) =>
  (...args: A): R =>
    fn(store, ...args);

/** A use case of a store and an actor, with both bound. */
const asOperator =
  <S, A extends unknown[], R>(store: S, fn: (store: S, actor: typeof OPERATOR, ...args: A) => R) =>
  (...args: A): R =>
    fn(store, OPERATOR, ...args);

export function cliServices(db: Db) {
  const graph = new PostgresGraphStore(db);
  const webhooks = new PostgresWebhookAdminStore(db);
  const deliveries = new PostgresDeliveriesStore(db);
  const orchestrations = new PostgresOrchestrationStore(db);
  const publishing = new PostgresPublishingStore(db);
  return {
    nodeKindOf: on(db, nodeKindOf),
    personOfIdentity: on(db, personOfIdentity),
    createPerson: over(graph, createPerson),
    createCollection: over(graph, createCollection),
    grantAccess: over(graph, grantAccess),
    createWebhook: asOperator(webhooks, createWebhook),
    listWebhooks: over(webhooks, listWebhooks),
    setWebhookTemplate: over(webhooks, setWebhookTemplate),
    rotateWebhookToken: over(webhooks, rotateWebhookToken),
    listDeliveries: over(deliveries, listDeliveries),
    setWebhookSecret: over(deliveries, setWebhookSecret),
    rerenderWebhook: asOperator(deliveries, rerenderWebhook),
    replayDelivery: over(deliveries, replayDelivery),
    addCollectionOrchestration: over(orchestrations, addCollectionOrchestration),
    updateOrchestration: asOperator(orchestrations, updateOrchestration),
    setOrchestrationEnabled: asOperator(orchestrations, setOrchestrationEnabled),
    deleteOrchestration: asOperator(orchestrations, deleteOrchestration),
    runOrchestration: asOperator(orchestrations, runOrchestration),
    rerunOrchestration: asOperator(orchestrations, rerunOrchestration),
    listOrchestrationRuns: (id: string, limit: number) => listOrchestrationRuns(orchestrations, OPERATOR, id, { limit }),
    setOrchestrationSecret: asOperator(orchestrations, setOrchestrationSecret),
    createPublication: asOperator(publishing, createPublication),
    publishArticle: over(publishing, publishArticle),
    runAbEvaluation: () => runAbEvaluation(publishing),
    abResults: over(new PostgresAbResults(db), abResults),
    queueTts: (payload: { node_id: string; voice?: string; rate?: number }) => enqueueJob(db, 'tts_generate', payload, { maxAttempts: 3 }),
    getJob: on(db, getJob),
    rotateServerSecret: on(db, rotateServerSecret),
    mediaOfJob: on(db, mediaOfJob),
    /** One file into a collection as POST /media takes it, as the operator. */
    addMedia: (storageDir: string, limits: UploadLimits, input: { collection_id: string; bytes: Uint8Array; title?: string | null }) =>
      uploadMedia({ store: new PostgresMediaStore(db), files: new LocalFileStore(storageDir), limits }, OPERATOR, input),
    deleteWebhook: over(webhooks, deleteWebhook),
    /** The console's bounded reads (GET /studio/publikasjoner, /studio/orkestreringer), as the actor given. */
    listPublications: (actor: Actor, limit: number) => new PostgresStudioReads(db).publications(actor, limit),
    listOrchestrations: (actor: Actor, limit: number) => new PostgresStudioReads(db).orchestrations(actor, limit),
    prune: (storageDir: string, options: { dryRun: boolean }) =>
      runPrune({ catalog: postgresPruneCatalog(db), files: new LocalFileStore(storageDir), probe: new StatfsDiskProbe(), storageDir }, { ...options, trigger: 'cli' }),
  };
}
export type CliServices = ReturnType<typeof cliServices>;

/** A pool for one command, and its services. */
export function openServices(url: string, logger: Logger): { services: CliServices; close(): Promise<void> } {
  const handle = openDatabase({ connectionString: url, logger, max: 2 });
  return { services: cliServices(handle.db), close: () => handle.close() };
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
 * DATABASE_URL when set (it must answer now, or the command fails naming it); otherwise the
 * embedded PostgreSQL under INNTAK_DATA_DIR — reused when another process (a running `npm start`)
 * already serves it, started here (in a child process that stops when released, or when this
 * process goes away) when not.
 */
export async function resolveDatabase(config: CliConfig, logger: Logger): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    const problem = await unanswered(config.databaseUrl, 5000);
    if (problem) throw new Error(`DATABASE_URL (${withoutPassword(config.databaseUrl)}): ${problem}`);
    return { url: config.databaseUrl, release: async () => {}, exited: never };
  }
  const url = `postgres://postgres:postgres@127.0.0.1:${config.embeddedPort}/inntak`;
  if ((await unanswered(url, 1000)) === undefined) return { url, release: async () => {}, exited: never };
  usableDataDir(config.dataDir);
  logger.info('starting embedded PostgreSQL', { data_dir: config.dataDir, port: config.embeddedPort });
  const server = await spawnEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPort, database: 'inntak' }).catch((err: Error) => {
    // As root the library runs PostgreSQL as the OS user `postgres`, which must reach the folder.
    const hint = /permission denied/i.test(err.message) ? '; the OS user postgres must be able to open every folder on the way to INNTAK_DATA_DIR' : '';
    throw new Error(`the embedded PostgreSQL (INNTAK_DATA_DIR=${config.dataDir}, EMBEDDED_PG_PORT=${config.embeddedPort}) did not start: ${err.message}${hint}`, { cause: err });
  });
  // The embedded database is ours to keep current; an operator's DATABASE_URL is migrated only
  // by `inntak migrate` or `npm start`.
  await migrate(server.url);
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
