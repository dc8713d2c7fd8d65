import { afterAll, beforeAll, expect } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { AbClientGate, AbRecorder } from '@inntak/ab-testing';
import { setupTestContext, type TestContext } from './helpers.js';

// The scene of the publishing tests: an owner and a system administrator, an app serving the
// published pages with an A/B recorder flushed by hand, and the intentions they call.

export let ctx: TestContext;
export let app: Express;
export let owner: string;
/** A system administrator: only they may give a publication custom domains. */
export let sysadmin: { id: string; authorization: string };
export let recorder: AbRecorder;

/** Builds the scene in a database of the calling test file's own, and closes it after. */
export function setupPublishingScene(): void {
  beforeAll(async () => {
    ctx = await setupTestContext();
    // Flushed by hand in these tests; the timer is tested in ab-recorder.test.ts.
    recorder = new AbRecorder((rows) => recordAbCounts(ctx.database.db, rows), ctx.logger, { flushMs: 3_600_000 });
    // Many readers from one test address: the per-address cap is tested in publishing-security.test.ts.
    app = ctx.app({ publishing: { recorder, ownHost: 'inntak.test', abGate: new AbClientGate({ clientsPerAddress: 1000 }) } });
    owner = await ctx.ownerAuthorization();
    sysadmin = await ctx.addPerson('pub-sysadmin', { admin: true });
  });
  afterAll(async () => {
    await recorder.close();
    await ctx.close();
  });
}

export function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

export let slugs = 0;
export async function publication(extra: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const slug = `blad-${++slugs}`;
  // Domains need a system administrator, who then makes the owner an admin of the publication.
  const creator = extra.domains ? sysadmin.authorization : owner;
  const res = await post('/intentions/create_publication', creator, { title: `Bladet ${slugs}`, slug, about: 'Om bladet.\n\nAndre avsnitt.', ...extra });
  expect(res.status).toBe(201);
  if (extra.domains) expect((await post('/intentions/grant_access', creator, { subject_id: ctx.ownerId, object_id: res.body.id, access: 'admin' })).status).toBe(200);
  return { id: res.body.id, slug };
}

export async function node(title: string, content = `Innhold i ${title}`, visibility = 'hidden'): Promise<string> {
  const res = await post('/intentions/create_node', owner, { node_kind: 'content', title, content, visibility });
  expect(res.status).toBe(201);
  return res.body.id;
}

export async function publish(publicationId: string, nodeId: string): Promise<string> {
  const res = await post('/intentions/publish_article', owner, { publication_id: publicationId, node_id: nodeId });
  expect(res.status).toBe(201);
  return res.body.edge_id;
}

export async function article(publicationId: string, title: string, content?: string): Promise<string> {
  const id = await node(title, content);
  await publish(publicationId, id);
  return id;
}

export async function abEvents(variantId: string): Promise<{ impressions: number; clicks: number }> {
  const { rows } = await sql<{ impressions: string; clicks: string }>`
    select coalesce(sum(impressions), 0) as impressions, coalesce(sum(clicks), 0) as clicks from ab_events where variant_edge_id = ${variantId}`.execute(ctx.database.db);
  return { impressions: Number(rows[0]!.impressions), clicks: Number(rows[0]!.clicks) };
}

export async function edgeMetadata(id: string): Promise<Record<string, unknown>> {
  const row = await ctx.database.db.selectFrom('edges').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
  return row.metadata;
}
