import { createServer } from 'node:http';
import { sql } from 'kysely';
import { cachedLiveRoomStatus } from '@inntak/jobs';
import { openDatabase, PostgresIdentityDirectory, PostgresIntakeStore, PostgresLiveRoomStatus } from '@inntak/postgres';
import { NoIssuerVerifier, OidcTokenVerifier } from './oidc-verifier.js';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';

// Composition root of the API process: config, adapters, app, listen, drain on SIGTERM.
const config = loadConfig();
const logger = createLogger(config.logLevel);
if (!config.databaseUrl) {
  logger.error('DATABASE_URL is not set (npm start sets it, with an embedded PostgreSQL)');
  process.exit(1);
}
if (!config.oidcIssuer) {
  logger.warn('OIDC_ISSUER is not set: intake and /health work, every authenticated operation answers 401');
}
const verifier = config.oidcIssuer
  ? new OidcTokenVerifier(config.oidcIssuer, config.oidcAudience!, logger)
  : new NoIssuerVerifier();
const database = openDatabase({ connectionString: config.databaseUrl, logger, slowQueryMs: config.slowQueryMs });
const app = createApp({
  logger,
  intakeStore: new PostgresIntakeStore(database.db),
  verifier,
  identities: new PostgresIdentityDirectory(database.db),
  db: database.db,
  baseUrl: config.baseUrl,
  databaseReady: async () => {
    await sql`select 1`.execute(database.db);
  },
  bodyLimitBytes: config.bodyLimitBytes,
  slowRequestMs: config.slowRequestMs,
  jobAdmin: { db: database.db, liveRooms: cachedLiveRoomStatus(new PostgresLiveRoomStatus(database.db)) },
});

const server = createServer(app);
server.listen(config.port, () => {
  logger.info('api listening', { port: config.port, base_url: config.baseUrl });
});

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('draining in-flight requests', { signal });
  // close() stops accepting, lets in-flight requests finish and drops idle keep-alive sockets.
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await database.close();
  logger.info('api stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
