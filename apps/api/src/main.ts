import { openDatabase } from '@inntak/postgres';
import { NoIssuerVerifier, OidcTokenVerifier } from './oidc-verifier.js';
import { startApiServer } from './api-server.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';

// Composition root of the API process: config, adapters, app and stream, listen, drain on SIGTERM.
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
const api = await startApiServer(
  {
    logger,
    database,
    databaseUrl: config.databaseUrl,
    baseUrl: config.baseUrl,
    verifier,
    bodyLimitBytes: config.bodyLimitBytes,
    slowRequestMs: config.slowRequestMs,
    realtime: config.realtime,
    metricsToken: config.metricsToken,
    storageDir: config.storageDir,
  },
  config.port,
);
logger.info('api listening', { port: config.port, base_url: config.baseUrl });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('draining in-flight requests', { signal });
  await api.close();
  await database.close();
  logger.info('api stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
