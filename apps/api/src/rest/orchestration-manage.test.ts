import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { recordLogEntry } from '@inntak/postgres/orchestration';
import { app, ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

// Managing an orchestration (issue 27): update, enable/disable, delete, run by hand, secrets, runs.
setupOwnerScene();

const SCRIPT = 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n';
const MANUAL = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n';

async function orchestration(trigger: object = { event: 'node.created', conditions: { node_kind: 'content' } }, content = SCRIPT): Promise<string> {
  const res = await post('/intentions/create_node', owner, { node_kind: 'orchestration', title: 'O', content, metadata: { trigger }, collection_id: ctx.collectionId });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const node = (id: string) => ctx.database.db.selectFrom('nodes').select(['content', 'metadata', 'created_by']).where('id', '=', id).executeTakeFirst();
const subscribed = async (id: string) => (await ctx.database.db.selectFrom('orchestration_subscriptions').select('orchestration_id').where('orchestration_id', '=', id).execute()).length > 0;

describe('update_orchestration', () => {
  it('an invalid script answers 400 with line and column and changes nothing', async () => {
    const id = await orchestration();
    const res = await post('/intentions/update_orchestration', owner, { id, script: 'steps:\n  - action: create_node\n    with: { node_kind: content, titel: x }\n' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Ugyldig forespørsel: skript: linje 3, kolonne 33: steg 1: with.titel: ukjent felt' });
    expect((await node(id))!.content).toBe(SCRIPT);
  });

  it('a valid script and trigger are saved; the matching index follows the new trigger', async () => {
    const id = await orchestration();
    const script = SCRIPT.replace('sett', 'endret');
    const res = await post('/intentions/update_orchestration', owner, { id, script, trigger: { event: 'node.updated', where: { value: '{event.changes}', exists: true } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, steps: 1, runs_as: ctx.ownerId });
    const saved = await node(id);
    expect(saved!.content).toBe(script);
    expect(saved!.metadata.trigger).toEqual({ event: 'node.updated', where: { value: '{event.changes}', exists: true } });
    const rows = await ctx.database.db.selectFrom('orchestration_subscriptions').select('event').where('orchestration_id', '=', id).execute();
    expect(rows).toEqual([{ event: 'node.updated' }]);
  });

  it('an admin who is not its creator may change it, and it then runs as them, not as its creator', async () => {
    const id = await orchestration();
    const admin = await ctx.addPerson('samling-admin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' });
    const res = await post('/intentions/update_orchestration', admin.authorization, { id, script: SCRIPT });
    expect(res.status).toBe(200);
    expect(res.body.runs_as).toBe(admin.id);
    expect((await node(id))!.created_by).toBe(admin.id);
  });

  it('a new trigger takes admin on every node it observes; the script alone does not', async () => {
    const res = await post('/intentions/create_node', owner, { node_kind: 'orchestration', title: 'O', content: SCRIPT, metadata: { trigger: { event: 'node.created' } } });
    const id = res.body.id as string;
    expect((await post('/intentions/create_edge', owner, { source_id: id, target_id: ctx.collectionId, edge_type: 'observes' })).status).toBe(201);
    const editor = await ctx.addPerson('orkestrering-admin');
    await post('/intentions/grant_access', owner, { subject_id: editor.id, object_id: id, access: 'admin' });
    await post('/intentions/grant_access', owner, { subject_id: editor.id, object_id: ctx.collectionId, access: 'member' });
    const wider = await post('/intentions/update_orchestration', editor.authorization, { id, trigger: { event: 'node.updated' } });
    expect(wider.status).toBe(403);
    expect((await node(id))!.metadata.trigger).toEqual({ event: 'node.created' });
    const script = await post('/intentions/update_orchestration', editor.authorization, { id, script: SCRIPT });
    expect(script.status).toBe(200);
    expect(script.body.runs_as).toBe(editor.id);
  });

  it('a stranger gets 404, a member of its collection 403', async () => {
    const id = await orchestration();
    const stranger = await ctx.addPerson('fremmed');
    expect((await post('/intentions/update_orchestration', stranger.authorization, { id, script: SCRIPT })).status).toBe(404);
    const member = await ctx.addPerson('medlem');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: ctx.collectionId, access: 'member' });
    expect((await post('/intentions/update_orchestration', member.authorization, { id, script: SCRIPT })).status).toBe(403);
    expect((await post('/intentions/set_orchestration_enabled', member.authorization, { id, enabled: false })).status).toBe(403);
    expect((await post('/intentions/delete_orchestration', member.authorization, { id })).status).toBe(403);
  });
});

describe('set_orchestration_enabled and delete_orchestration', () => {
  it('a disabled orchestration leaves the matching index; enabling puts it back', async () => {
    const id = await orchestration();
    expect(await subscribed(id)).toBe(true);
    const off = await post('/intentions/set_orchestration_enabled', owner, { id, enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ id, enabled: false });
    expect(await subscribed(id)).toBe(false);
    expect((await post('/intentions/set_orchestration_enabled', owner, { id, enabled: true })).status).toBe(200);
    expect(await subscribed(id)).toBe(true);
  });

  it('deleting it deletes its log and runs with it; then it is 404', async () => {
    const id = await orchestration();
    await recordLogEntry(ctx.database.db, { orchestrationId: id, jobId: null, event: { type: 'node.created', id, depth: 0 }, record: { step: 1, action: 'set_metadata', fallback: null, status: 'ok', duration_ms: 1 } });
    const res = await post('/intentions/delete_orchestration', owner, { id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, deleted: true });
    expect(await node(id)).toBeUndefined();
    expect(await ctx.database.db.selectFrom('orchestration_log').select('id').where('orchestration_id', '=', id).execute()).toEqual([]);
    expect((await request(app).get(`/admin/orchestrations/${id}/log`).set('Authorization', owner)).status).toBe(404);
  });
});

describe('run_orchestration, the runs list and secrets', () => {
  it('a manual orchestration is queued with its input and listed as a queued run', async () => {
    const id = await orchestration({ event: 'manual' }, MANUAL);
    const res = await post('/intentions/run_orchestration', owner, { id, input: { hva: 'kaffe' } });
    expect(res.status).toBe(202);
    const runs = await request(app).get(`/admin/orchestrations/${id}/runs`).set('Authorization', owner);
    expect(runs.status).toBe(200);
    expect(runs.body).toEqual({
      runs: [expect.objectContaining({ id: res.body.run_id, job_id: res.body.job_id, status: 'queued', event: { type: 'manual', id: res.body.run_id, depth: 0, input: { hva: 'kaffe' } }, duration_ms: null })],
      next_cursor: null,
    });
  });

  it('one whose trigger is not manual, or that is disabled, answers 409', async () => {
    const id = await orchestration();
    expect((await post('/intentions/run_orchestration', owner, { id, input: {} })).status).toBe(409);
    const manual = await orchestration({ event: 'manual' }, MANUAL);
    await post('/intentions/set_orchestration_enabled', owner, { id: manual, enabled: false });
    const res = await post('/intentions/run_orchestration', owner, { id: manual, input: {} });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Konflikt: orkestreringen er slått av' });
  });

  it('a secret is stored apart and never answered back', async () => {
    const id = await orchestration();
    const res = await post('/intentions/set_orchestration_secret', owner, { id, name: 'HOOK_TOKEN', value: 'hemmelig-verdi' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, name: 'HOOK_TOKEN' });
    const read = await request(app).get(`/nodes/${id}`).set('Authorization', owner);
    expect(JSON.stringify(read.body)).not.toContain('hemmelig-verdi');
    expect((await post('/intentions/set_orchestration_secret', owner, { id, name: 'bad name', value: 'x' })).status).toBe(400);
  });

  it('a schedule trigger needs a valid cron and is planned', async () => {
    const bad = await post('/intentions/create_node', owner, { node_kind: 'orchestration', content: SCRIPT.replace('{event.node.id}', ctx.collectionId), metadata: { trigger: { event: 'schedule', cron: '61 * * * *' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^Ugyldig forespørsel: metadata\.trigger\.cron: ugyldig cron-uttrykk/);
    const id = await orchestration({ event: 'schedule', cron: '*/5 * * * *' }, 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Klokka {event.scheduled_at}" }\n');
    const row = await ctx.database.db.selectFrom('orchestration_schedules').selectAll().where('orchestration_id', '=', id).executeTakeFirstOrThrow();
    expect(row.cron).toBe('*/5 * * * *');
    expect(row.next_at.getTime()).toBeGreaterThan(Date.now());
    expect(row.next_at.getUTCMinutes() % 5).toBe(0);
    await post('/intentions/set_orchestration_enabled', owner, { id, enabled: false });
    expect(await ctx.database.db.selectFrom('orchestration_schedules').select('cron').where('orchestration_id', '=', id).execute()).toEqual([]);
  });
});
