import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { runGovernedOnce } from '../../worker/src/__tests__/run-governed-once.js';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

/**
 * Issue 22's attacks on the write policy, each as it was made through the API and a real worker
 * run (scaled down): a member re-scoping the owner's orchestration (finding 1), a member
 * rewriting a publication's settings through set_metadata (2), a member deleting the editor's
 * A/B variants (3), a reader publishing a hidden collection's node and an owner who could not
 * take it down (6), anyone registering a cli_tool (14).
 */

let ctx: TestContext;
let app: Express;
let owner: string;
let member: { id: string; authorization: string };
let shared: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  owner = await ctx.ownerAuthorization();
  member = await ctx.addPerson('wp-member');
  shared = await collection('Delt');
  expect((await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: shared, access: 'member' })).status).toBe(200);
});
afterAll(() => ctx.close());

function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

async function collection(title: string, authorization = owner): Promise<string> {
  const res = await post('/intentions/create_collection', authorization, { title });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function node(fields: Record<string, unknown>, authorization = owner): Promise<string> {
  const res = await post('/intentions/create_node', authorization, { node_kind: 'content', ...fields });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function edge(fields: Record<string, unknown>, authorization = owner): Promise<string> {
  const res = await post('/intentions/create_edge', authorization, fields);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** An orchestration in `collectionId`, observing it, for `melding` nodes. */
async function orchestration(collectionId: string, script: string, authorization = owner): Promise<{ id: string; observes: string }> {
  const id = await node(
    { node_kind: 'orchestration', title: 'Orkestrering', content: script, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'melding' } } }, collection_id: collectionId },
    authorization,
  );
  return { id, observes: await edge({ source_id: id, target_id: collectionId, edge_type: 'observes' }, authorization) };
}

const copyInto = (collectionId: string) => `steps:
  - action: create_node
    with: { node_kind: content, title: "Kopi: {event.node.title}", content: "{event.node.content}", collection_id: "${collectionId}" }
`;

async function nodesTitled(title: string) {
  return ctx.database.db.selectFrom('nodes').select(['id', 'created_by', 'content']).where('title', '=', title).execute();
}

async function logOf(orchestrationId: string) {
  return ctx.database.db.selectFrom('orchestration_log').select(['status', 'error']).where('orchestration_id', '=', orchestrationId).orderBy('id').execute();
}

describe('a member cannot re-scope the owner’s orchestration (finding 1)', () => {
  it('deleting its observes edge is refused (403), and the owner’s node in a hidden collection is not copied where the member reads', async () => {
    const hidden = await collection('Skjult');
    const o = await orchestration(shared, copyInto(shared));
    const res = await post('/intentions/delete_edge', member.authorization, { edge_id: o.observes });
    expect(res.status).toBe(403);
    await node({ node_kind: 'melding', title: 'Hemmelig', content: 'hemmelig innhold', collection_id: hidden });
    await node({ node_kind: 'melding', title: 'Delt melding', content: 'delt', collection_id: shared }, member.authorization);
    await runGovernedOnce(ctx.database);
    expect(await nodesTitled('Kopi: Hemmelig')).toEqual([]);
    // The orchestration still runs, on what it observes.
    expect(await nodesTitled('Kopi: Delt melding')).toHaveLength(1);
  });

  it('adding an observes edge from it to the member’s own collection is refused (403): it never writes the member’s text as the owner', async () => {
    const own = await collection('Medlemmets', member.authorization);
    const o = await orchestration(shared, copyInto(shared));
    const res = await post('/intentions/create_edge', member.authorization, { source_id: o.id, target_id: own, edge_type: 'observes' });
    expect(res.status).toBe(403);
    await node({ node_kind: 'melding', title: 'Medlemmets tekst', content: 'medlemmets innhold', collection_id: own }, member.authorization);
    await runGovernedOnce(ctx.database);
    expect(await nodesTitled('Kopi: Medlemmets tekst')).toEqual([]);
  });

  it('its last observes edge is kept, even against an admin of the observed collection (409)', async () => {
    const admin = await ctx.addPerson('wp-admin-1');
    const watched = await collection('Overvåket');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: watched, access: 'admin' });
    const o = await orchestration(shared, copyInto(shared));
    const second = await edge({ source_id: o.id, target_id: watched, edge_type: 'observes' });
    expect((await post('/intentions/delete_edge', admin.authorization, { edge_id: second })).status).toBe(200);
    const last = await post('/intentions/delete_edge', owner, { edge_id: o.observes });
    expect(last.status).toBe(409);
    expect(last.body).toEqual({ error: 'Konflikt: en orkestrering må observere minst én node; slett orkestreringen i stedet' });
  });
});

describe('a publication’s settings change only with admin on it (finding 2)', () => {
  it('a member’s orchestration cannot move the publication’s slug with set_metadata, so the slug stays taken', async () => {
    const pub = await post('/intentions/create_publication', owner, { title: 'Nyheter', slug: 'nyheter-wp' });
    expect(pub.status).toBe(201);
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub.body.id, access: 'member' });
    const own = await collection('Medlemmets 2', member.authorization);
    const o = await orchestration(
      own,
      `steps:
  - action: set_metadata
    with: { node_id: "${pub.body.id}", key: theme, value: "overtatt" }
  - action: set_metadata
    with: { node_id: "${pub.body.id}", key: publication, value: { slug: nyheter-wp-old, title: Nyheter, about: "", domains: [] } }
`,
      member.authorization,
    );
    await node({ node_kind: 'melding', title: 'Utløser', collection_id: own }, member.authorization);
    await runGovernedOnce(ctx.database);
    const log = await logOf(o.id);
    expect(log[0]).toEqual({ status: 'failed', error: expect.stringMatching(/^set_metadata: Ingen tilgang/) });
    expect(log.filter((entry) => entry.status === 'ok')).toEqual([]);
    const row = await ctx.database.db.selectFrom('nodes').select('metadata').where('id', '=', pub.body.id).executeTakeFirstOrThrow();
    expect(row.metadata).toEqual({ publication: expect.objectContaining({ slug: 'nyheter-wp' }) });
    const taken = await post('/intentions/create_publication', member.authorization, { title: 'Falsk', slug: 'nyheter-wp' });
    expect(taken.status).toBe(409);
  });
});

describe('variants are deleted only by whoever may make one (finding 3)', () => {
  it('a member of the publication gets 403 for delete_edge on a variant, and its ab_events stay', async () => {
    const pub = (await post('/intentions/create_publication', owner, { title: 'Varianter', slug: 'varianter-wp' })).body.id;
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub, access: 'member' });
    const article = await node({ title: 'Sak', collection_id: pub });
    expect((await post('/intentions/publish_article', owner, { publication_id: pub, node_id: article })).status).toBe(201);
    const variants = [];
    for (const title of ['A', 'B']) {
      const res = await post('/intentions/create_variant', owner, { publication_id: pub, article_id: article, variant_type: 'title', title });
      expect(res.status).toBe(201);
      variants.push(res.body.edge_id as string);
      await sql`insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks) values (${res.body.edge_id}, 3, 50, 5)`.execute(ctx.database.db);
    }
    for (const id of variants) expect((await post('/intentions/delete_edge', member.authorization, { edge_id: id })).status).toBe(403);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from ab_events where variant_edge_id = any(${variants}::uuid[])`.execute(ctx.database.db);
    expect(rows[0]!.n).toBe(2);
    expect((await post('/intentions/delete_edge', owner, { edge_id: variants[1] })).status).toBe(200);
  });
});

describe('publishing needs admin where the node lives; its admins can always take it down (finding 6)', () => {
  it('a reader of a hidden collection publishes neither its node (403) nor an orchestration in it (400)', async () => {
    const reader = await ctx.addPerson('wp-reader');
    const hidden = await collection('Skjult 6');
    await post('/intentions/grant_access', owner, { subject_id: reader.id, object_id: hidden, access: 'reader' });
    const secret = await node({ title: 'Hemmelig sak', collection_id: hidden });
    const o = await orchestration(hidden, copyInto(hidden));
    const pub = (await post('/intentions/create_publication', reader.authorization, { title: 'Lekk', slug: 'lekk-wp' })).body.id;
    expect((await request(app).get(`/nodes/${secret}`).set('Authorization', reader.authorization)).status).toBe(200);
    const refused = await post('/intentions/publish_article', reader.authorization, { publication_id: pub, node_id: secret });
    expect(refused.status).toBe(403);
    const script = await post('/intentions/publish_article', reader.authorization, { publication_id: pub, node_id: o.id });
    expect(script.status).toBe(400);
    expect(script.body.error).toBe('Ugyldig forespørsel: node_id: en orchestration kan ikke publiseres');
    expect((await request(app).get(`/pub/lekk-wp/artikkel/${secret}`)).status).toBe(404);
  });

  it('the owner unpublishes their node from a publication they have no rights on, after revoking the admin who published it', async () => {
    const editor = await ctx.addPerson('wp-editor');
    const home = await collection('Hjem 6');
    await post('/intentions/grant_access', owner, { subject_id: editor.id, object_id: home, access: 'admin' });
    const story = await node({ title: 'Sak 6', collection_id: home });
    const pub = (await post('/intentions/create_publication', editor.authorization, { title: 'Redaktørens', slug: 'redaktorens-wp' })).body.id;
    const published = await post('/intentions/publish_article', editor.authorization, { publication_id: pub, node_id: story });
    expect(published.status).toBe(201);
    expect((await post('/intentions/revoke_access', owner, { subject_id: editor.id, object_id: home })).status).toBe(200);
    // The generic delete stays refused; unpublish_article is the way, for the node's admins too.
    expect((await post('/intentions/delete_edge', owner, { edge_id: published.body.edge_id })).status).toBe(400);
    const un = await post('/intentions/unpublish_article', owner, { edge_id: published.body.edge_id });
    expect(un.status).toBe(200);
    expect((await request(app).get(`/pub/redaktorens-wp/artikkel/${story}`)).status).toBe(404);
    // Someone who administers neither the node nor the publication still cannot.
    const again = await post('/intentions/publish_article', editor.authorization, { publication_id: pub, node_id: story });
    expect(again.status).toBe(404);
  });
});

describe('second attack (issue 22): the node’s admins find what to take down', () => {
  it('the owner cannot see the published_in edge into a publication hidden from them, and unpublish_node takes the node off every publication', async () => {
    // The attack on a running service: an admin of the owner's collection published its node in
    // the admin's own (hidden) publication and was revoked; the page stayed up, and the owner,
    // who may unpublish it, could not learn the edge's id: GET /nodes shows no edge to a node
    // the caller cannot see.
    const editor = await ctx.addPerson('wp2-editor');
    const home = await collection('Hjem 2');
    await post('/intentions/grant_access', owner, { subject_id: editor.id, object_id: home, access: 'admin' });
    const story = await node({ title: 'Sak 2', collection_id: home });
    const pub = (await post('/intentions/create_publication', editor.authorization, { title: 'Egen', slug: 'egen-wp2' })).body.id;
    const ownPub = (await post('/intentions/create_publication', owner, { title: 'Eierens', slug: 'eierens-wp2' })).body.id;
    expect((await post('/intentions/publish_article', editor.authorization, { publication_id: pub, node_id: story })).status).toBe(201);
    expect((await post('/intentions/publish_article', owner, { publication_id: ownPub, node_id: story })).status).toBe(201);
    expect((await post('/intentions/revoke_access', owner, { subject_id: editor.id, object_id: home })).status).toBe(200);
    expect((await request(app).get(`/pub/egen-wp2/artikkel/${story}`)).status).toBe(200);
    const seen = await request(app).get(`/nodes/${story}`).set('Authorization', owner);
    expect(JSON.stringify(seen.body)).not.toContain(pub);

    // Someone without admin on the node cannot, and learns nothing.
    expect((await post('/intentions/unpublish_node', editor.authorization, { node_id: story })).status).toBe(404);
    expect((await post('/intentions/unpublish_node', member.authorization, { node_id: story })).status).toBe(404);
    // The role just below the one allowed: a member of the node's collection sees it, and is refused.
    const below = await ctx.addPerson('wp2-member');
    await post('/intentions/grant_access', owner, { subject_id: below.id, object_id: home, access: 'member' });
    expect((await post('/intentions/unpublish_node', below.authorization, { node_id: story })).status).toBe(403);
    const un = await post('/intentions/unpublish_node', owner, { node_id: story });
    expect(un.status).toBe(200);
    expect(un.body.removed).toBe(2);
    expect((await request(app).get(`/pub/egen-wp2/artikkel/${story}`)).status).toBe(404);
    expect((await request(app).get(`/pub/eierens-wp2/artikkel/${story}`)).status).toBe(404);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from edges where source_id = ${story} and edge_type = 'published_in'`.execute(ctx.database.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe('registering a cli_tool takes a system administrator (finding 14)', () => {
  it('create_node of a cli_tool is 403 for anyone else and 201 for a system administrator; a tool made before the rule does not run', async () => {
    const stranger = await ctx.addPerson('wp-stranger');
    const refused = await post('/intentions/create_node', stranger.authorization, { node_kind: 'cli_tool', title: 'echo', metadata: { command: 'echo' } });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Ingen tilgang: node_kind: bare en systemadministrator kan registrere cli_tool');
    const root = await ctx.addPerson('wp-root', { admin: true });
    expect((await post('/intentions/create_node', root.authorization, { node_kind: 'cli_tool', title: 'echo', metadata: { command: 'echo' } })).status).toBe(201);

    // A tool the stranger made before the rule (written as create_node used to).
    const old = await node({ title: 'echo' }, stranger.authorization);
    await sql`update nodes set node_kind = 'cli_tool', metadata = '{"command":"echo"}' where id = ${old}`.execute(ctx.database.db);
    const own = await collection('Fremmed', stranger.authorization);
    const o = await orchestration(own, `steps:\n  - action: run_cli_tool\n    with: { tool_id: "${old}", args: ["{event.node.title}"] }\n`, stranger.authorization);
    await node({ node_kind: 'melding', title: 'Kjør', collection_id: own }, stranger.authorization);
    await runGovernedOnce(ctx.database, { httpAllow: [], cliAllow: ['echo'] });
    expect((await logOf(o.id))[0]).toEqual({ status: 'failed', error: 'run_cli_tool: Ingen tilgang: tool_id: verktøyet er ikke registrert av en systemadministrator' });
  });
});
