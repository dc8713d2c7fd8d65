import { afterAll, beforeAll } from '@jest/globals';
import { sql } from 'kysely';
import { setupTestContext, type TestContext } from './helpers.js';

// The scene of the webhook intake tests: a test database with one webhook, and reads of what
// intake wrote.

export let ctx: TestContext;
export let webhook: { id: string; token: string; edgeId: string };

/** Builds the scene in a database of the calling test file's own, and closes it after. */
export function setupIntakeScene(): void {
  beforeAll(async () => {
    ctx = await setupTestContext();
    webhook = await ctx.addWebhook();
  });
  afterAll(() => ctx.close());
}

export async function countRows(): Promise<{ nodes: number; edges: number; access: number }> {
  const row = await sql<{ nodes: string; edges: string; access: string }>`
    select (select count(*) from nodes) as nodes, (select count(*) from edges) as edges,
           (select count(*) from node_access) as access`.execute(ctx.database.db);
  const r = row.rows[0]!;
  return { nodes: Number(r.nodes), edges: Number(r.edges), access: Number(r.access) };
}

export function node(id: string) {
  return ctx.database.db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
