import { beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { recordLogEntry } from '@inntak/postgres/orchestration';
import { app, ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';
import { loadConfig } from '../config.js';

setupOwnerScene();

const SCRIPT = `steps:
  - action: create_node
    with: { node_kind: content, title: "Sett: {event.node.title}" }
    fallback:
      action: create_node
      with: { node_kind: content, title: "Reserve: {event.node.id}" }
  - action: set_metadata
    with: { node_id: "{steps.1.output.id}", key: kilde, value: "{event.node.id}" }
fallback:
  action: set_metadata
  with: { node_id: "{event.node.id}", key: orchestration_error, value: "{error}" }
`;
const BROKEN = 'steps:\n  - action: create_node\n    with: { node_kind: content, titel: x }\n';
const BROKEN_ERROR = 'Ugyldig forespørsel: skript: linje 3, kolonne 33: steg 1: with.titel: ukjent felt';

describe('POST /intentions/validate_orchestration', () => {
  it('a valid script answers 200 with its number of steps', async () => {
    const res = await post('/intentions/validate_orchestration', owner, { script: SCRIPT });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ steps: 2 });
  });

  it('an invalid script answers 400 naming line and column of the first problem', async () => {
    const res = await post('/intentions/validate_orchestration', owner, { script: BROKEN });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: BROKEN_ERROR });
  });

  it('with event, variables of the other event are refused', async () => {
    const res = await post('/intentions/validate_orchestration', owner, { script: SCRIPT, event: 'edge.created' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: skript: linje 3, kolonne 40: steg 1: with\.title: \{event\.node\.title\}: forventet/);
  });

  it('needs a caller', async () => {
    const res = await request(app).post('/intentions/validate_orchestration').send({ script: SCRIPT });
    expect(res.status).toBe(401);
  });
});

describe('POST /intentions/create_node of an orchestration', () => {
  it('an invalid script answers the same 400 and saves nothing', async () => {
    const before = await ctx.database.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').execute();
    const res = await post('/intentions/create_node', owner, { node_kind: 'orchestration', content: BROKEN, metadata: { trigger: { event: 'node.created' } } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: BROKEN_ERROR });
    const after = await ctx.database.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').execute();
    expect(after).toEqual(before);
  });

  it('a missing or unknown trigger answers 400 naming the field', async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'orchestration', content: SCRIPT, metadata: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: metadata\.trigger: /);
  });

  it('a valid one is saved with its tag condition normalized', async () => {
    const res = await post('/intentions/create_node', owner, {
      node_kind: 'orchestration',
      title: 'Kopier',
      content: SCRIPT,
      metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'content', has_tag: ' Nyheter' } } },
    });
    expect(res.status).toBe(201);
    const node = await request(app).get(`/nodes/${res.body.id}`).set('Authorization', owner);
    expect(node.body.node.metadata).toEqual({ trigger: { event: 'node.created', conditions: { node_kind: 'content', has_tag: 'nyheter' } } });
  });
});

describe('orchestrations per person (issue 22, finding 8)', () => {
  it('ORCHESTRATIONS_PER_PERSON sets the cap: default 100, at least 1', () => {
    expect(loadConfig({}).orchestration.perPerson).toBe(100);
    expect(loadConfig({ ORCHESTRATIONS_PER_PERSON: '5' }).orchestration).toEqual({ perPerson: 5, runsPerPerson: 5 });
    expect(() => loadConfig({ ORCHESTRATIONS_PER_PERSON: '0' })).toThrow('ORCHESTRATIONS_PER_PERSON must be an integer from 1 to 1000000; got "0"');
  });

  it('beyond ORCHESTRATIONS_PER_PERSON create_node answers 409 and saves nothing; others are not affected', async () => {
    // The setting as the config module reads it, handed on as the composition root does.
    const capped = ctx.app({ orchestration: loadConfig({ ORCHESTRATIONS_PER_PERSON: '2' }).orchestration });
    const maker = await ctx.addPerson('orkestrerer');
    const other = await ctx.addPerson('en-annen');
    const body = { node_kind: 'orchestration', content: SCRIPT, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'aldri' } } } };
    const create = (authorization: string) => request(capped).post('/intentions/create_node').set('Authorization', authorization).send(body);
    expect((await create(maker.authorization)).status).toBe(201);
    expect((await create(maker.authorization)).status).toBe(201);
    const refused = await create(maker.authorization);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'Konflikt: du har allerede 2 orkestreringer, og det er grensen per person' });
    const mine = await ctx.database.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').where('created_by', '=', maker.id).execute();
    expect(mine).toHaveLength(2);
    expect((await create(other.authorization)).status).toBe(201);
    // Other kinds of node are not counted.
    expect((await request(capped).post('/intentions/create_node').set('Authorization', maker.authorization).send({ node_kind: 'content', title: 'x' })).status).toBe(201);
  });

  it('concurrent creations cannot pass the cap together', async () => {
    const capped = ctx.app({ orchestration: loadConfig({ ORCHESTRATIONS_PER_PERSON: '3' }).orchestration });
    const maker = await ctx.addPerson('samtidig');
    const body = { node_kind: 'orchestration', content: SCRIPT, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'aldri' } } } };
    const answers = await Promise.all(Array.from({ length: 8 }, () => request(capped).post('/intentions/create_node').set('Authorization', maker.authorization).send(body)));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
  });
});

describe('GET /admin/orchestrations/{id}/log', () => {
  let orchestration: string;
  const event = { type: 'node.created' as const, id: '0190a0a0-0000-7000-8000-000000000001', depth: 0 };

  beforeAll(async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'orchestration', content: SCRIPT, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'nothing' } } } });
    orchestration = res.body.id;
    for (let i = 1; i <= 3; i++) {
      await recordLogEntry(ctx.database.db, { orchestrationId: orchestration, jobId: null, event, record: { step: i, action: 'create_node', fallback: null, status: 'ok', output: { id: `n${i}` }, duration_ms: i } });
    }
    await recordLogEntry(ctx.database.db, { orchestrationId: orchestration, jobId: null, event, record: { step: 4, action: 'http_post', fallback: null, status: 'failed', error: 'nei', duration_ms: 5 } });
  });

  it('its owner reads it newest first, paginated, output or error per row', async () => {
    const first = await request(app).get(`/admin/orchestrations/${orchestration}/log?limit=2`).set('Authorization', owner);
    expect(first.status).toBe(200);
    expect(first.body.entries).toEqual([
      expect.objectContaining({ step: 4, action: 'http_post', status: 'failed', error: 'nei', duration_ms: 5, job_id: null, event }),
      expect.objectContaining({ step: 3, status: 'ok', output: { id: 'n3' } }),
    ]);
    expect(first.body.entries[0]).not.toHaveProperty('output');
    expect(first.body.entries[1]).toHaveProperty('at');
    const second = await request(app).get(`/admin/orchestrations/${orchestration}/log?limit=2&cursor=${first.body.next_cursor}`).set('Authorization', owner);
    expect(second.body.entries.map((e: { step: number }) => e.step)).toEqual([2, 1]);
    expect(second.body.next_cursor).toBeNull();
  });

  it('a system administrator may read it', async () => {
    const admin = await ctx.addPerson('orchestration-admin', { admin: true });
    const res = await request(app).get(`/admin/orchestrations/${orchestration}/log`).set('Authorization', admin.authorization);
    expect(res.status).toBe(200);
    expect(res.body.entries).toHaveLength(4);
  });

  it('a stranger gets 404, a reader 403', async () => {
    const stranger = await ctx.addPerson('orchestration-stranger');
    expect((await request(app).get(`/admin/orchestrations/${orchestration}/log`).set('Authorization', stranger.authorization)).status).toBe(404);
    const reader = await ctx.addPerson('orchestration-reader');
    await post('/intentions/grant_access', owner, { subject_id: reader.id, object_id: orchestration, access: 'reader' });
    const res = await request(app).get(`/admin/orchestrations/${orchestration}/log`).set('Authorization', reader.authorization);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Ingen tilgang' });
  });

  it('a node that is not an orchestration is 404', async () => {
    const res = await request(app).get(`/admin/orchestrations/${ctx.collectionId}/log`).set('Authorization', owner);
    expect(res.status).toBe(404);
  });
});
