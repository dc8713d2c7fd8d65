import type { DatabaseHandle } from '@inntak/postgres';
import type { TestIssuer } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '@inntak/api/dist/api-server.js';
import type { createLogger } from '@inntak/api/dist/logger.js';
import { OidcTokenVerifier } from '@inntak/api/dist/oidc-verifier.js';

/**
 * The API in the benchmark's own process on a loopback port, trusting the local test issuer:
 * what bench:ws and bench:orchestration measure /ws delivery against.
 */
export function startBenchApi(options: {
  databaseUrl: string;
  database: DatabaseHandle;
  logger: ReturnType<typeof createLogger>;
  issuer: TestIssuer;
  /** Packets a /ws client may have waiting before it is told to resync. */
  maxQueue: number;
}): Promise<ApiServer> {
  const { databaseUrl, database, logger, issuer, maxQueue } = options;
  return startApiServer(
    {
      logger,
      database,
      databaseUrl,
      baseUrl: 'http://127.0.0.1',
      verifier: new OidcTokenVerifier(issuer.issuer, issuer.audience, logger),
      bodyLimitBytes: 25 * 1024 * 1024,
      slowRequestMs: 200,
      realtime: { maxQueue, initialSync: { collections: 50, nodesPerCollection: 20 } },
    },
    0,
    '127.0.0.1',
  );
}
