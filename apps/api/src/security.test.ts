import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import type pg from 'pg';
import { createApp } from './app.js';
import type { ApiServer } from './api-server.js';
import { loadConfig } from './config.js';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { depsOnOwnPools } from './__tests__/own-pools.js';
import { connectStream, startApiInstance, type StreamClient } from './__tests__/realtime-helpers.js';

/**
 * Issue 11's attacks on the HTTP and stream surface, each as it was made (scaled down): edges
 * of a node without a page and reads that starve intake (6), content words found through
 * search and a readable cursor (7), edges attached to others' nodes (10), member lists and
 * hidden ids shown to strangers (11), and 500s for input PostgreSQL cannot store (14).
 */

let ctx: TestContext;
let app: Express;
let owner: string;
let stranger: { id: string; authorization: string };

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  owner = await ctx.ownerAuthorization();
  stranger = await ctx.addPerson('sec-stranger');
});
afterAll(() => ctx.close());

function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

/** A raw JSON text as the body, for escapes like a lone surrogate that JSON.stringify would keep valid. */
function postRaw(path: string, authorization: string, json: string) {
  return request(app).post(path).set('Authorization', authorization).set('Content-Type', 'application/json').send(json);
}

async function collection(visibility = 'hidden', authorization = owner): Promise<string> {
  const res = await post('/intentions/create_collection', authorization, { title: 'Samling', visibility });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function node(fields: Record<string, unknown>, authorization = owner): Promise<string> {
  const res = await post('/intentions/create_node', authorization, { node_kind: 'content', ...fields });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('GET /nodes/{id} pages its edges (point 6)', () => {
  it('gives at most edges_limit edges per page, and following next_edges_cursor yields each edge once', async () => {
    const c = await collection();
    const members = [];
    for (let i = 0; i < 30; i++) members.push(await node({ collection_id: c }));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: request.Response = await request(app)
        .get(`/nodes/${c}`)
        .query({ edges_limit: 7, ...(cursor ? { edges_cursor: cursor } : {}) })
        .set('Authorization', owner);
      expect(res.status).toBe(200);
      expect(res.body.edges.length).toBeLessThanOrEqual(7);
      seen.push(...res.body.edges.map((e: { id: string }) => e.id));
      cursor = res.body.next_edges_cursor;
      pages++;
    } while (cursor && pages < 20);
    expect(pages).toBeGreaterThanOrEqual(5);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(31); // 30 belongs_to edges and the owner edge
  });

  it('a stranger reading a readable collection of hidden nodes examines a bounded number of edges per page', async () => {
    const c = await collection('readable');
    for (let i = 0; i < 30; i++) await node({ collection_id: c });
    const res = await request(app).get(`/nodes/${c}`).query({ edges_limit: 2 }).set('Authorization', stranger.authorization);
    expect(res.status).toBe(200);
    expect(res.body.edges).toEqual([]);
    expect(res.body.next_edges_cursor).toEqual(expect.any(String));
  });
});

describe('one caller cannot starve the others (point 6)', () => {
  it('reads beyond the per-caller cap answer 429 with Retry-After while the first ones are still running', async () => {
    const capped = ctx.app({ readsPerCaller: 2 });
    // The search table locked: each search waits in the database, so all are in flight at once.
    const locker = await ctx.database.pool.connect();
    await locker.query('begin');
    await locker.query('lock table node_search in access exclusive mode');
    const search = () => request(capped).get('/query/nodes').query({ q: 'felles' }).set('Authorization', stranger.authorization);
    const answers = [search(), search(), search(), search(), search()].map((r) => r.then((res) => res));
    const firstThree = new Promise<request.Response[]>((resolve) => {
      const done: request.Response[] = [];
      for (const answer of answers) void answer.then((res) => (done.push(res), done.length === 3 && resolve([...done])));
    });
    // Seconds, not a measure of speed: refused requests answer at once, and without the cap none
    // would answer before the commit below.
    const early = await Promise.race([firstThree, new Promise<null>((resolve) => setTimeout(() => resolve(null), 15_000))]);
    await locker.query('commit');
    locker.release();
    const all = await Promise.all(answers);
    expect(early?.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
    expect(early![0]!.headers['retry-after']).toBe('1');
    expect(early![0]!.body).toEqual({ error: 'For mange samtidige forespørsler; prøv igjen straks' });
  });

  it('intake answers from its own pool while reads hold every connection of the main one', async () => {
    const { database, intakeDatabase, deps } = depsOnOwnPools(ctx, 2);
    const wired = createApp(deps);
    const webhook = await ctx.addWebhook();
    const held: pg.PoolClient[] = await Promise.all([database.pool.connect(), database.pool.connect()]);
    try {
      // From the main pool it would wait until `finally` releases it, past this timeout.
      const res = await request(wired).post(`/api/webhook/${webhook.token}`).send({ title: 'midt i travelheten' }).timeout(15_000);
      expect(res.status).toBe(200);
    } finally {
      held.forEach((client) => client.release());
      await database.close();
      await intakeDatabase.close();
    }
  });

  it('INTAKE_POOL_SIZE and READ_CONCURRENCY_PER_CALLER are settings with small defaults', () => {
    expect(loadConfig({})).toMatchObject({ intakePoolSize: 4, readsPerCaller: 4 });
    expect(loadConfig({ INTAKE_POOL_SIZE: '2', READ_CONCURRENCY_PER_CALLER: '8' })).toMatchObject({ intakePoolSize: 2, readsPerCaller: 8 });
    expect(() => loadConfig({ INTAKE_POOL_SIZE: '0' })).toThrow(/INTAKE_POOL_SIZE/);
  });
});

describe('search shows a summary reader titles only (point 7)', () => {
  let discoverable: string;
  beforeAll(async () => {
    discoverable = await node({ title: 'Offentlig overskrift', content: 'hemmelig kodeord her', visibility: 'discoverable' });
  });

  async function search(authorization: string, q: string): Promise<string[]> {
    const res = await request(app).get('/query/nodes').query({ q }).set('Authorization', authorization);
    expect(res.status).toBe(200);
    return res.body.nodes.map((n: { id: string }) => n.id);
  }

  it('a stranger does not find a discoverable node by words, phrases or exclusions of its hidden content', async () => {
    expect(await search(stranger.authorization, 'hemmelig')).not.toContain(discoverable);
    expect(await search(stranger.authorization, '"hemmelig kodeord"')).not.toContain(discoverable);
    expect(await search(stranger.authorization, 'offentlig -hemmelig')).toContain(discoverable);
    expect(await search(stranger.authorization, 'overskrift')).toContain(discoverable);
  });

  it('the owner finds it by its content', async () => {
    expect(await search(owner, 'hemmelig')).toContain(discoverable);
  });

  it('next_cursor does not show the rank, and a forged cursor with rank 1e999 answers 400', async () => {
    for (let i = 0; i < 3; i++) await node({ title: `markørord ${i}`, content: 'markørord' });
    const res = await request(app).get('/query/nodes').query({ q: 'markørord', limit: 1 }).set('Authorization', owner);
    expect(res.status).toBe(200);
    const cursor = res.body.next_cursor as string;
    expect(Buffer.from(cursor, 'base64url').toString('latin1')).not.toMatch(/\d\.\d/);
    const forged = Buffer.from(JSON.stringify([discoverable, '1e999'])).toString('base64url');
    const refused = await request(app).get('/query/nodes').query({ q: 'markørord', cursor: forged }).set('Authorization', owner);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^Ugyldig forespørsel: cursor: /);
    const next = await request(app).get('/query/nodes').query({ q: 'markørord', limit: 1, cursor }).set('Authorization', owner);
    expect(next.status).toBe(200);
    expect(next.body.nodes[0].id).not.toBe(res.body.nodes[0].id);
  });
});

describe('edges into others’ nodes (point 10)', () => {
  it('a stranger may not attach an edge to a readable node (403), and edge metadata over 16 KB answers 400', async () => {
    const target = await node({ visibility: 'readable' });
    const own = await node({}, stranger.authorization);
    const attach = await post('/intentions/create_edge', stranger.authorization, { source_id: own, target_id: target, edge_type: 'observes' });
    expect(attach.status).toBe(403);
    const other = await node({});
    const big = await post('/intentions/create_edge', owner, { source_id: other, target_id: target, edge_type: 'observes', metadata: { blob: 'x'.repeat(17_000) } });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/^Ugyldig forespørsel: metadata: /);
  });
});

describe('member lists and hidden ids stay with those who may see them (point 11)', () => {
  it('a stranger reading a readable collection sees no member_of or owner edge and no edge from a hidden webhook', async () => {
    const c = await collection('readable');
    const member = await ctx.addPerson('sec-member-11');
    expect((await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: c, access: 'member' })).status).toBe(200);
    const hook = await post('/intentions/create_webhook', owner, { collection_id: c });
    expect(hook.status).toBe(201);
    const visibleEnd = await node({ collection_id: c, visibility: 'readable' });

    const seen = await request(app).get(`/nodes/${c}`).set('Authorization', stranger.authorization);
    expect(seen.status).toBe(200);
    const edges = seen.body.edges as Array<{ edge_type: string; source_id: string }>;
    expect(edges.filter((e) => e.edge_type === 'member_of' || e.edge_type === 'owner')).toEqual([]);
    expect(edges.filter((e) => e.source_id === hook.body.id)).toEqual([]);
    expect(edges.map((e) => e.source_id)).toContain(visibleEnd);

    const asMember = await request(app).get(`/nodes/${c}`).set('Authorization', member.authorization);
    expect(asMember.body.edges.filter((e: { edge_type: string }) => e.edge_type === 'member_of')).toEqual([expect.objectContaining({ source_id: member.id })]);
    const asOwner = await request(app).get(`/nodes/${c}`).set('Authorization', owner);
    expect(asOwner.body.edges.filter((e: { edge_type: string }) => e.edge_type === 'member_of' || e.edge_type === 'owner')).toHaveLength(2);
  });

  describe('on /ws', () => {
    let api: ApiServer;
    let watcher: StreamClient;
    beforeAll(async () => {
      api = await startApiInstance(ctx);
      watcher = await connectStream(api.url, await ctx.tokenFor('sec-stranger'));
    });
    afterAll(async () => {
      watcher.close();
      await api.close();
    });

    it('a grant on a readable collection is not sent to everyone', async () => {
      const c = await collection('readable');
      const member = await ctx.addPerson('sec-member-ws');
      const grant = await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: c, access: 'admin' });
      expect(grant.status).toBe(200);
      // A later change everyone sees: once it has arrived, the grant would have too.
      const marker = await node({ visibility: 'open', title: 'markør' });
      await watcher.next((e) => e.type === 'node.created' && e.row.id === marker);
      expect(watcher.of('edge.created', grant.body.edge_id)).toEqual([]);
      expect(watcher.events.filter((e) => e.type === 'edge.created' && e.row.target_id === c)).toEqual([]);
    });
  });
});

describe('input PostgreSQL cannot store answers 400, not 500 (point 14)', () => {
  const NUL = '\u0000';

  it('NUL in a title, content, kind, metadata or edge metadata of a graph write, or in a webhook title', async () => {
    const c = await collection();
    const other = await node({});
    const cases: Array<[string, unknown, RegExp]> = [
      ['/intentions/create_collection', { title: `a${NUL}b` }, /title/],
      ['/intentions/create_node', { node_kind: 'content', title: `a${NUL}` }, /title/],
      ['/intentions/create_node', { node_kind: 'content', content: `a${NUL}` }, /content/],
      ['/intentions/create_node', { node_kind: `con${NUL}tent` }, /node_kind/],
      ['/intentions/create_node', { node_kind: 'content', metadata: { k: `v${NUL}` } }, /metadata/],
      ['/intentions/create_node', { node_kind: 'content', metadata: { [`k${NUL}`]: 'v' } }, /metadata/],
      ['/intentions/create_edge', { source_id: other, target_id: c, edge_type: 'observes', metadata: { k: NUL } }, /metadata/],
      ['/intentions/create_webhook', { collection_id: c, title: `krok${NUL}` }, /title/],
    ];
    for (const [path, body, field] of cases) {
      const res = await post(path, owner, body);
      expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
      expect(res.body.error).toMatch(field);
    }
  });

  it('a lone surrogate in a title or in metadata', async () => {
    for (const json of ['{"node_kind":"content","title":"a\\ud800b"}', '{"node_kind":"content","metadata":{"k":"\\udfff"}}']) {
      const res = await postRaw('/intentions/create_node', owner, json);
      expect({ json, status: res.status }).toEqual({ json, status: 400 });
    }
  });

  it('metadata nested 5,000 deep, and metadata past the 32-level limit of graph writes', async () => {
    const nested = (depth: number) => '{"d":'.repeat(depth) + '{}' + '}'.repeat(depth);
    const deep = await postRaw('/intentions/create_node', owner, `{"node_kind":"content","metadata":${nested(5000)}}`);
    expect(deep.status).toBe(400);
    const past = await postRaw('/intentions/create_node', owner, `{"node_kind":"content","metadata":${nested(40)}}`);
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/^Ugyldig forespørsel: metadata: .*32/);
    const edge = await postRaw('/intentions/create_edge', owner, JSON.stringify({ source_id: await node({}), target_id: await node({}), edge_type: 'observes' }).replace(/}$/, `,"metadata":${nested(40)}}`));
    expect(edge.status).toBe(400);
    const within = await postRaw('/intentions/create_node', owner, `{"node_kind":"content","metadata":${nested(30)}}`);
    expect(within.status).toBe(201);
  });

  it('NUL in q', async () => {
    const res = await request(app).get('/query/nodes').query({ q: `ord${NUL}` }).set('Authorization', owner);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: q: /);
  });
});
