import { openDatabase } from '@inntak/postgres';
import { postgresAppDeps } from '../api-server.js';
import { OidcTokenVerifier } from '../oidc-verifier.js';
import { BASE_URL, type TestContext } from './helpers.js';

type ServerOptions = Parameters<typeof postgresAppDeps>[0];

/**
 * An app's deps over pools of their own on the test database, as a running API has them: the
 * main one with `max` connections and intake's with one, for tests that hold the main pool's
 * connections. The caller closes both databases.
 */
export function depsOnOwnPools(ctx: TestContext, max: number, options: Partial<ServerOptions> = {}) {
  const database = openDatabase({ connectionString: ctx.testDb.url, logger: ctx.logger, max });
  const intakeDatabase = openDatabase({ connectionString: ctx.testDb.url, logger: ctx.logger, max: 1 });
  const deps = postgresAppDeps({
    logger: ctx.logger,
    database,
    intakeDatabase,
    verifier: new OidcTokenVerifier(ctx.issuer.issuer, ctx.issuer.audience, ctx.logger),
    baseUrl: BASE_URL,
    bodyLimitBytes: 1024 * 1024,
    slowRequestMs: 200,
    ...options,
  });
  return { database, intakeDatabase, deps };
}
