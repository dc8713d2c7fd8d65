import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { app, ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

// Issue 39's additions to managing orchestrations: a new one in a collection as the caller, one
// read back for its editor, and a re-run of any ended run from the start.
setupOwnerScene();

const MANUAL = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n';

describe('create_collection_orchestration', () => {
  it('makes it as the caller, in the collection and observing it, in one go', async () => {
    const res = await post('/intentions/create_collection_orchestration', owner, { collection_id: ctx.collectionId, title: 'Nye noder', event: 'node.created', conditions: { node_kind: 'content' }, script: MANUAL.replace('{event.input.hva}', '{event.node.title}') });
    expect(res.status).toBe(201);
    expect(res.body.steps).toBe(1);
    const edges = await ctx.database.pool.query<{ edge_type: string }>(`select edge_type from edges where source_id = $1 and target_id = $2 order by edge_type`, [res.body.id, ctx.collectionId]);
    expect(edges.rows.map((e) => e.edge_type)).toEqual(['belongs_to', 'observes']);
    const read = await request(app).get(`/admin/orchestrations/${res.body.id}`).set('Authorization', owner);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ title: 'Nye noder', trigger: { event: 'node.created', conditions: { node_kind: 'content' } }, enabled: true, runs_as: ctx.ownerId });
  });

  it('answers a broken script with its line and column, and a stranger 404; nothing is made', async () => {
    const before = (await ctx.database.pool.query(`select count(*)::int as n from nodes where node_kind = 'orchestration'`)).rows[0].n;
    const broken = await post('/intentions/create_collection_orchestration', owner, { collection_id: ctx.collectionId, event: 'manual', script: 'steps:\n  - acton: x\n' });
    expect(broken.status).toBe(400);
    expect(broken.body.error).toMatch(/skript: linje 2, kolonne \d+: /);
    const stranger = await ctx.addPerson('fremmed-orkestrering');
    expect((await post('/intentions/create_collection_orchestration', stranger.authorization, { collection_id: ctx.collectionId, event: 'manual', script: MANUAL })).status).toBe(404);
    expect((await ctx.database.pool.query(`select count(*)::int as n from nodes where node_kind = 'orchestration'`)).rows[0].n).toBe(before);
  });

  it('asks the write policy: a reader of the collection (just below the member an observes edge needs at its target) gets 403 and nothing is made; a member may', async () => {
    const reader = await ctx.addPerson('leser-orkestrering');
    const member = await ctx.addPerson('medlem-orkestrering');
    for (const [person, access] of [[reader, 'reader'], [member, 'member']] as const) {
      expect((await post('/intentions/grant_access', owner, { subject_id: person.id, object_id: ctx.collectionId, access })).status).toBeLessThan(300);
    }
    const count = async () => (await ctx.database.pool.query(`select count(*)::int as n from nodes where node_kind = 'orchestration'`)).rows[0].n;
    const before = await count();
    expect((await post('/intentions/create_collection_orchestration', reader.authorization, { collection_id: ctx.collectionId, event: 'manual', script: MANUAL })).status).toBe(403);
    expect(await count()).toBe(before);
    expect((await post('/intentions/create_collection_orchestration', member.authorization, { collection_id: ctx.collectionId, event: 'manual', script: MANUAL })).status).toBe(201);
  });
});

describe('rerun_orchestration from the start', () => {
  it('re-runs an ended run as a new run from step 1 with the same input; a queued one is refused', async () => {
    const made = await post('/intentions/create_collection_orchestration', owner, { collection_id: ctx.collectionId, event: 'manual', script: MANUAL });
    const run = await post('/intentions/run_orchestration', owner, { id: made.body.id, input: { hva: 'te' } });
    expect(run.status).toBe(202);
    expect((await post('/intentions/rerun_orchestration', owner, { run_id: run.body.run_id, from: 'start' })).status).toBe(409);
    // A completed run, as the worker leaves it.
    await ctx.database.pool.query(`update orchestration_runs set status = 'completed', started_at = now(), finished_at = now(), runs_as = $2 where id = $1`, [run.body.run_id, ctx.ownerId]);
    expect((await post('/intentions/rerun_orchestration', owner, { run_id: run.body.run_id })).status).toBe(409);
    const again = await post('/intentions/rerun_orchestration', owner, { run_id: run.body.run_id, from: 'start' });
    expect(again.status).toBe(202);
    const runs = await request(app).get(`/admin/orchestrations/${made.body.id}/runs`).set('Authorization', owner);
    expect(runs.body.runs[0]).toMatchObject({ id: again.body.run_id, status: 'queued', rerun_of: run.body.run_id, from_step: 1, event: { type: 'manual', input: { hva: 'te' } }, attempts: [], lost_workers: 0 });
  });
});
