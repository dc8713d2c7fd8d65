import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import type { IntakeStore } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { countRows, ctx, node, setupIntakeScene, webhook } from '../__tests__/intake-scene.js';

setupIntakeScene();

describe('POST /api/webhook/{token}', () => {
  it('unknown token answers 404 Ugyldig webhook-token', async () => {
    const res = await request(ctx.app()).post('/api/webhook/00000000-0000-4000-8000-000000000000').send({ title: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Ugyldig webhook-token' });
  });

  it('a token that is not a UUID answers like an unknown one', async () => {
    const res = await request(ctx.app()).post('/api/webhook/not-a-uuid').send({});
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Ugyldig webhook-token' });
  });

  it('a token on a node that is not a webhook, or a webhook without belongs_to edge, is not found', async () => {
    const token = '11111111-1111-4111-8111-111111111111';
    await ctx.database.db
      .insertInto('nodes')
      .values([
        { id: '01900000-0000-7000-8000-000000000001', node_kind: 'content', title: null, content: null, metadata: JSON.stringify({ token }), created_by: null },
        {
          id: '01900000-0000-7000-8000-000000000002',
          node_kind: 'webhook',
          title: null,
          content: null,
          metadata: JSON.stringify({ token: '22222222-2222-4222-8222-222222222222' }),
          created_by: null,
        },
      ])
      .execute();
    for (const t of [token, '22222222-2222-4222-8222-222222222222']) {
      const res = await request(ctx.app()).post(`/api/webhook/${t}`).send({});
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Ugyldig webhook-token' });
    }
  });

  it('creates the content node described in the spec and answers 200 with node_id and edge_id', async () => {
    const payload = { title: 'Bygg ferdig', content: 'Alt gikk bra', extra: [1, 2, { deep: true }] };
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send(payload);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['edge_id', 'node_id']);
    expect(res.body.node_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const created = await node(res.body.node_id);
    expect(created).toMatchObject({
      node_kind: 'content',
      title: 'Bygg ferdig',
      content: 'Alt gikk bra',
      visibility: 'hidden',
      created_by: webhook.id,
    });
    expect(created.metadata).toEqual({ source: 'webhook', webhook_id: webhook.id, payload });
  });

  it('links the node to the collection with a system belongs_to edge created by the webhook', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 't' });
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', res.body.edge_id).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({
      source_id: res.body.node_id,
      target_id: ctx.collectionId,
      edge_type: 'belongs_to',
      metadata: {},
      system: true,
      created_by: webhook.id,
    });
  });

  it("copies the target collection's access rows to the new node via the edge", async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 't' });
    const rows = await ctx.database.db.selectFrom('node_access').selectAll().where('object_id', '=', res.body.node_id).execute();
    expect(rows).toEqual([{ subject_id: ctx.ownerId, object_id: res.body.node_id, access: 'owner', via_edge: res.body.edge_id }]);
  });

  it('treats a request without a body as the empty JSON object', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`);
    expect(res.status).toBe(200);
    const created = await node(res.body.node_id);
    expect(created.metadata.payload).toEqual({});
    expect(created.title).toBeNull();
    expect(created.content).toBeNull();
  });

  it('stores an empty extracted title or content as null', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: '', body: '' });
    const created = await node(res.body.node_id);
    expect(created.title).toBeNull();
    expect(created.content).toBeNull();
  });

  it('uses body as content when content is absent', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 7, body: 'fra body' });
    const created = await node(res.body.node_id);
    expect(created.title).toBeNull();
    expect(created.content).toBe('fra body');
  });

  it('accepts any JSON value as the payload and stores it unchanged', async () => {
    for (const raw of ['[1,"to",{"tre":3}]', '"bare tekst"', '42', 'null', 'true']) {
      const res = await request(ctx.app())
        .post(`/api/webhook/${webhook.token}`)
        .set('Content-Type', 'application/json')
        .send(raw);
      expect(res.status).toBe(200);
      expect((await node(res.body.node_id)).metadata.payload).toEqual(JSON.parse(raw));
    }
  });

  it('stores a payload with NUL or lone surrogates, which jsonb cannot hold, with those characters replaced', async () => {
    const res = await request(ctx.app())
      .post(`/api/webhook/${webhook.token}`)
      .set('Content-Type', 'application/json')
      .send('{"title":"a\\u0000b","body":"x\\ud800y","nested":{"k\\u0000":["\\u0000"]}}');
    expect(res.status).toBe(200);
    const created = await node(res.body.node_id);
    expect(created.title).toBe('ab');
    expect(created.content).toBe('x\uFFFDy');
    expect(created.metadata.payload).toEqual({ title: 'ab', body: 'x\uFFFDy', nested: { k: [''] } });
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'warn', webhook_id: webhook.id }));
  });

  it('parses a body without a content type as JSON', async () => {
    const res = await request(ctx.app())
      .post(`/api/webhook/${webhook.token}`)
      .set('Content-Type', '')
      .send(Buffer.from('{"title":"uten type"}'));
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).title).toBe('uten type');
  });

  it('accepts a form-encoded body whose payload field holds JSON', async () => {
    const res = await request(ctx.app())
      .post(`/api/webhook/${webhook.token}`)
      .type('form')
      .send({ payload: JSON.stringify({ title: 'Travis', number: '42' }) });
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).metadata.payload).toEqual({ title: 'Travis', number: '42' });
  });

  it('turns a form-encoded body without a payload field into an object of its fields', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).type('form').send({ text: 'hei', channel_name: 'general' });
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).metadata.payload).toEqual({ text: 'hei', channel_name: 'general' });
  });

  it('answers 400 for unparsable JSON and writes nothing', async () => {
    const before = await countRows();
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).set('Content-Type', 'application/json').send('{"title":');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig JSON i forespørselen/);
    expect(await countRows()).toEqual(before);
  });

  it('answers 413 for a body over the limit and writes nothing', async () => {
    const before = await countRows();
    const res = await request(ctx.app({ bodyLimitBytes: 1024 }))
      .post(`/api/webhook/${webhook.token}`)
      .send({ title: 'x', content: 'y'.repeat(2048) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Forespørselen er for stor' });
    expect(await countRows()).toEqual(before);
  });

  it('uses generic extraction, logs a warning and succeeds when template_id is unknown', async () => {
    const unknown = await ctx.addWebhook('finnes-ikke');
    const res = await request(ctx.app()).post(`/api/webhook/${unknown.token}`).send({ title: 'generisk', content: 'c' });
    expect(res.status).toBe(200);
    expect(await node(res.body.node_id)).toMatchObject({ title: 'generisk', content: 'c' });
    expect(ctx.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', webhook_id: unknown.id, template_id: 'finnes-ikke' }),
    );
  });

  it('finds the webhook through the token index, not a scan', async () => {
    await sql`set enable_seqscan = off`.execute(ctx.database.db);
    const plan = await sql<{ 'QUERY PLAN': string }>`explain select id from nodes
      where node_kind = 'webhook' and metadata ->> 'token' = ${webhook.token}`.execute(ctx.database.db);
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('nodes_webhook_token_idx');
  });

  it('never writes the token into the logs', async () => {
    await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({});
    expect(JSON.stringify(ctx.logs)).not.toContain(webhook.token);
  });
});

/** The real store with a failing token lookup: a step the database cannot be made to fail alone. */
function failingLookup(): IntakeStore {
  const real = new PostgresIntakeStore(ctx.database);
  return {
    findWebhookByToken: () => Promise.reject(new Error('injected failure in lookup')),
    writeContent: (node, edge, log) => real.writeContent(node, edge, log),
    recordFailedDelivery: (delivery) => real.recordFailedDelivery(delivery),
  };
}

/**
 * A real failure inside the database, at one step of the intake write and only for a payload
 * titled `title`: a trigger on the table that raises.
 */
async function failInDatabase(table: 'nodes' | 'edges' | 'node_access', title: string): Promise<void> {
  const name = `fail_${table}`;
  const titleOf = { nodes: 'new.title', edges: '(select title from nodes where id = new.source_id)', node_access: '(select title from nodes where id = new.object_id)' }[table];
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$
    begin if ${titleOf} = '${title}' then raise exception 'refused for the test'; end if; return new; end $$`).execute(ctx.database.db);
  await sql.raw(`create trigger ${name} before insert on ${table} for each row execute function ${name}()`).execute(ctx.database.db);
}

describe('database failures during intake', () => {
  beforeAll(async () => {
    await failInDatabase('nodes', 'feil i node');
    await failInDatabase('edges', 'feil i edge');
    await failInDatabase('node_access', 'reparer meg');
  });

  it('a failing token lookup answers 500 Databasefeil', async () => {
    const res = await request(ctx.app({ intakeStore: failingLookup() })).post(`/api/webhook/${webhook.token}`).send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Databasefeil' });
  });

  it('a failing node insert answers 500 Databasefeil ved opprettelse av node and writes nothing', async () => {
    const before = await countRows();
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 'feil i node' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Databasefeil ved opprettelse av node' });
    expect(await countRows()).toEqual(before);
  });

  it('a failing edge insert answers 500 Databasefeil ved opprettelse av edge and leaves no node behind', async () => {
    const before = await countRows();
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 'feil i edge' });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Databasefeil ved opprettelse av edge' });
    expect(await countRows()).toEqual(before);
  });

  it('a failing access propagation is logged, still answers 200, keeps node and edge and queues a repair', async () => {
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 'reparer meg' });
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).title).toBe('reparer meg');
    const edge = await ctx.database.db.selectFrom('edges').select('id').where('id', '=', res.body.edge_id).executeTakeFirst();
    expect(edge).toBeDefined();
    const access = await ctx.database.db.selectFrom('node_access').select('subject_id').where('object_id', '=', res.body.node_id).execute();
    expect(access).toEqual([]);
    const jobs = await sql<{ task_identifier: string; payload: { edge_id: string } }>`
      select t.identifier as task_identifier, j.payload
        from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`.execute(ctx.database.db);
    expect(jobs.rows).toContainEqual({ task_identifier: 'access_repair', payload: { edge_id: res.body.edge_id } });
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'error', edge_id: res.body.edge_id, error: 'refused for the test' }));
  });
});
