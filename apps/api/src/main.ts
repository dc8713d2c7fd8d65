import { connectionProblem, isDatabaseUnavailable, openDatabase, ReadReplicas, type DatabaseHandle } from '@inntak/postgres';
import { loadConfigOrExit, onStopSignals } from '@inntak/core';
import { DEV_ISSUER, openDevIssuer } from '@inntak/dev-issuer';
import type { TokenVerifier } from '@inntak/access';
import { NoIssuerVerifier, OidcTokenVerifier } from './oidc-verifier.js';
import { DevIssuerVerifier } from './dev-issuer-verifier.js';
import { OidcStudioLogin } from './console/studio-oidc.js';
import { SHUTDOWN_GRACE_MS, startApiServer, type ApiServer } from './api-server.js';
import { loadConfig, type ApiConfig } from './config.js';
import { createLogger } from './logger.js';

// Composition root of the API process: config, adapters, app and stream, listen, drain on SIGTERM.
// A setting or a start-up condition it cannot work with ends the process with one line naming it.

/** How long an interrupted start-up may take to close what it opened before the process just exits. */
const STARTUP_ABORT_GRACE_MS = 1000;

// Signal handlers first: a signal at any point of start-up (an issuer or a database that is slow
// to answer) stops the process at once (issue 22); once listening, it drains.
let api: ApiServer | undefined = undefined;
const opened: DatabaseHandle[] = [];
let stopping = false;
/** Settles never: the process exits when it is done. */
let aborting: Promise<never> | undefined;
const onSignal = (signal: string) => (api ? void shutdown(signal) : (aborting ??= abortStartup(signal)));
onStopSignals(onSignal);

const config: ApiConfig = loadConfigOrExit(() => loadConfig(), () => createLogger('error'));
const logger = createLogger(config.logLevel);
function fail(message: string): never {
  logger.error(message, { tag: 'startup' });
  process.exit(1);
}
if (!config.databaseUrl) fail('DATABASE_URL is not set (npm start sets it, with an embedded PostgreSQL)');
if (!config.oidcIssuer && !config.devIssuer) {
  logger.warn('OIDC_ISSUER is not set: intake and /health work, every authenticated operation answers 401');
}
if (config.devIssuerRefused) logger.warn(`INNTAK_DEV_ISSUER=1 ignored: ${config.devIssuerRefused}`);

const oidc = config.oidcIssuer ? new OidcTokenVerifier(config.oidcIssuer, config.oidcAudience!, logger) : undefined;
let verifier: TokenVerifier = oidc ?? new NoIssuerVerifier();
if (config.devIssuer) {
  const dev = await openDevIssuer(config.devIssuer.dataDir).catch((err: Error) => fail(`INNTAK_DATA_DIR: the development issuer's key cannot be read or made: ${err.message}`));
  verifier = new DevIssuerVerifier(dev, verifier);
  logger.warn('INNTAK_DEV_ISSUER=1: tokens from `inntak token` are accepted; for development on this machine only', { host: config.host });
}
if (oidc && !(await oidc.reachable(5000))) {
  logger.warn('OIDC_ISSUER does not answer: authenticated operations fail until it does; /health/ready says issuer "unreachable"', { issuer: config.oidcIssuer });
}

async function abortStartup(signal: string): Promise<never> {
  logger.info('api stopping during start-up', { signal });
  setTimeout(() => process.exit(0), STARTUP_ABORT_GRACE_MS);
  await Promise.all(opened.map((handle) => handle.close().catch(() => {})));
  process.exit(0);
}

const database = openDatabase({ connectionString: config.databaseUrl, logger, slowQueryMs: config.slowQueryMs });
opened.push(database);
try {
  await database.pool.query('select 1');
} catch (err) {
  // Issue 37: a database that does not answer (not one that refuses the password) is waited
  // for; webhooks known from the spool's store are accepted into it meanwhile.
  if (config.intakeSpool && isDatabaseUnavailable(err)) {
    logger.warn('DATABASE_URL: the database does not answer; starting anyway, intake accepts known webhooks into its spool until it does', {
      error: (err as NodeJS.ErrnoException).code ?? (err as Error).message,
    });
  } else {
    await database.close().catch(() => {});
    if (aborting) await aborting;
    fail(`DATABASE_URL: ${connectionProblem(err)}`);
  }
}
// Intake's own small pool: the public endpoint keeps answering while reads fill the main one.
const intakeDatabase = openDatabase({ connectionString: config.databaseUrl, logger, slowQueryMs: config.slowQueryMs, max: config.intakePoolSize });
opened.push(intakeDatabase);
// Reads on streaming replicas (READ_DATABASE_URL), checked every second; none: all on the primary.
// A search may take up to its 2 s cut-off: 3 s is a replica's fault, not the query's.
const REPLICA_TIMEOUTS = { connectMs: 1000, queryMs: 3000 };
const replicaDatabases = config.readDatabaseUrls.map((url) => {
  // Bounded (issue 38): a read a replica does not answer in time is read again on the primary.
  const handle = openDatabase({ connectionString: url, logger, slowQueryMs: config.slowQueryMs, timeouts: REPLICA_TIMEOUTS });
  opened.push(handle);
  const { hostname, port, pathname } = new URL(url);
  return { name: `${hostname}:${port || 5432}${pathname}`, database: handle };
});
const readReplicas = replicaDatabases.length > 0 ? new ReadReplicas({ primary: database, replicas: replicaDatabases, logger }) : undefined;
await readReplicas?.start();
const started = await startApiServer(
  {
    // The settings as the config module has them: api-server.ts hands each to its use case.
    ...config,
    databaseUrl: config.databaseUrl,
    logger,
    database,
    verifier,
    intakeDatabase,
    readReplicas,
    studio: {
      login:
        config.oidcIssuer && config.studio.clientId
          ? new OidcStudioLogin({ issuer: config.oidcIssuer, clientId: config.studio.clientId, clientSecret: config.studio.clientSecret, redirectUri: `${config.baseUrl}/studio/callback`, logger })
          : undefined,
      devIssuer: config.devIssuer ? DEV_ISSUER : undefined,
      sessionHours: config.studio.sessionHours,
    },
    app: oidc ? { issuerStatus: async () => ((await oidc.reachable()) ? 'ok' : 'unreachable') } : {},
  },
  config.port,
  config.host,
).catch(async (err: NodeJS.ErrnoException) => {
  await Promise.all([database.close().catch(() => {}), intakeDatabase.close().catch(() => {})]);
  if (aborting) await aborting;
  fail(err.code === 'EADDRINUSE' ? `PORT ${config.port} is already in use: stop what listens there or choose another PORT` : `could not listen on PORT ${config.port}: ${err.message}`);
});
if (aborting) await aborting;
api = started;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('draining in-flight requests', { signal, grace_ms: SHUTDOWN_GRACE_MS });
  // The last bound: whatever still holds the process (a database that does not answer its close)
  // does not keep it past the grace and a little more.
  setTimeout(() => {
    logger.error('api did not stop within its grace; exiting', { grace_ms: SHUTDOWN_GRACE_MS });
    process.exit(1);
  }, SHUTDOWN_GRACE_MS + 5000).unref();
  await started.close();
  readReplicas?.stop();
  await Promise.all(replicaDatabases.map((r) => r.database.close()));
  await database.close();
  await intakeDatabase.close();
  logger.info('api stopped');
  process.exit(0);
}
// Only now: whoever waits for this line (npm start's tests, an operator) may signal at once.
logger.info('api listening', { port: (started.server.address() as { port: number }).port, host: config.host ?? 'all interfaces', base_url: config.baseUrl });
