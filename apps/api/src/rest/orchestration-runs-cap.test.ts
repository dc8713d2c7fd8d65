import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { loadConfig } from '../config.js';
import { ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

// One login holds every worker slot (issue 35, finding 3): run_orchestration had no cap per
// person, so a loop of requests queued runs without bound ahead of everyone else's jobs.

setupOwnerScene();

const SCRIPT = 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.input.node}", key: sett, value: 1 }\n';

async function manual(authorization = owner): Promise<string> {
  const res = await post('/intentions/create_node', authorization, { node_kind: 'orchestration', title: 'Manuell', content: SCRIPT, metadata: { trigger: { event: 'manual' } }, collection_id: ctx.collectionId });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('runs one person asked for (ORCHESTRATION_RUNS_PER_PERSON)', () => {
  it('sets the cap: default 5, 1–1000', () => {
    expect(loadConfig({}).orchestration.runsPerPerson).toBe(5);
    expect(loadConfig({ ORCHESTRATION_RUNS_PER_PERSON: '2' }).orchestration).toEqual({ perPerson: 100, runsPerPerson: 2 });
    expect(() => loadConfig({ ORCHESTRATION_RUNS_PER_PERSON: '0' })).toThrow('ORCHESTRATION_RUNS_PER_PERSON must be an integer from 1 to 1000; got "0"');
  });

  it('a person with ORCHESTRATION_RUNS_PER_PERSON runs queued or running gets 429 with Retry-After, and no run is queued; another person is not affected', async () => {
    const id = await manual();
    const run = (authorization: string) => request(ctx.app()).post('/intentions/run_orchestration').set('Authorization', authorization).send({ id, input: {} });
    // The attack: a loop of run_orchestration by one login. Nothing runs them here, so they stay queued.
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await run(owner));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 429, 429]);
    expect(answers[5]!.body).toEqual({ error: 'Du har for mange orkestreringskjøringer i kø; vent til en er ferdig: høyst 5 om gangen' });
    expect(answers[5]!.headers['retry-after']).toBe('10');
    const queued = await ctx.database.db.selectFrom('orchestration_runs').select('id').where('orchestration_id', '=', id).execute();
    expect(queued).toHaveLength(5);

    // An admin of the collection asks for their own runs, counted apart.
    const admin = await ctx.addPerson('kjorer');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    expect((await run(admin.authorization)).status).toBe(202);

    // A run that ends frees its place.
    await ctx.database.db.updateTable('orchestration_runs').set({ status: 'completed' }).where('id', '=', queued[0]!.id).execute();
    expect((await run(owner)).status).toBe(202);
    expect((await run(owner)).status).toBe(429);
  });

  it('parallel requests cannot pass the cap together', async () => {
    const id = await manual();
    const asker = await ctx.addPerson('samtidig-kjorer');
    await post('/intentions/grant_access', owner, { subject_id: asker.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    const answers = await Promise.all(Array.from({ length: 8 }, () => request(ctx.app({ orchestration: loadConfig({ ORCHESTRATION_RUNS_PER_PERSON: '3' }).orchestration })).post('/intentions/run_orchestration').set('Authorization', asker.authorization).send({ id, input: {} })));
    expect(answers.filter((a) => a.status === 202)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
  });
});
