import { describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR, grantAccess } from '@inntak/access';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { checkOrchestrationNode, planScheduledRuns, rerunOrchestration, runOrchestration, setOrchestrationEnabled, type Trigger, createOrchestration } from '@inntak/orchestration';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { addOrchestration, alice, ALLOW, bob, content, h, inbox, logOf, metadataOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { storesOn } from '@inntak/postgres/testing';

// The triggers of issue 27 (node.updated, manual, schedule), the trigger's `where`, run statuses,
// re-runs from the failed step and disabled orchestrations, through a real graphile-worker.

setupOrchestrationScene();

async function runs(orchestrationId: string) {
  return h.db
    .selectFrom('orchestration_runs')
    .select(['id', 'status', 'failed_step', 'event', 'started_at', 'finished_at'])
    .where('orchestration_id', '=', orchestrationId)
    .orderBy('created_at')
    .execute();
}

const setStatus = (nodeId: string, status: string) =>
  h.db.updateTable('nodes').set({ metadata: sql`metadata || jsonb_build_object('status', ${status}::text)` }).where('id', '=', nodeId).execute();

async function scheduled(owner: typeof alice, trigger: Trigger, script: string): Promise<string> {
  const checked = checkOrchestrationNode({ metadata: { trigger }, content: script });
  return (await createOrchestration(storesOn(h.db).orchestration, owner, { node_kind: 'orchestration', title: 't', content: script, metadata: { trigger: checked.trigger } }, 100)).id;
}

describe('node.updated', () => {
  it('an update runs it with {event.changes}; its where on content leaves the other updates filtered', async () => {
    const target = await content(alice);
    const o = await addOrchestration(
      alice,
      { event: 'node.updated', conditions: { node_kind: 'bygg' }, where: { value: '{event.node.metadata.status}', equals: 'failed' } },
      `steps:\n  - action: set_metadata\n    with: { node_id: "${target}", key: endret, value: "{event.changes}" }\n`,
    );
    const build = await content(alice, { node_kind: 'bygg', metadata: { status: 'running' } });
    expect(await runs(o)).toEqual([]);
    // The node is read when the run starts (docs/orchestration.md): each update's run goes before the next update here.
    await setStatus(build, 'success');
    await runGovernedOnce(h, ALLOW);
    await setStatus(build, 'failed');
    await runGovernedOnce(h, ALLOW);
    // Touching a column without changing it is no event.
    await h.db.updateTable('nodes').set({ title: 'Hei' }).where('id', '=', build).execute();
    expect((await runs(o)).map((r) => r.event)).toEqual([
      { type: 'node.updated', id: build, depth: 0, changes: ['metadata.status'] },
      { type: 'node.updated', id: build, depth: 0, changes: ['metadata.status'] },
    ]);
    expect((await runs(o)).map((r) => r.status)).toEqual(['filtered', 'completed']);
    expect(await metadataOf(target)).toEqual({ endret: ['metadata.status'] });
    expect(await logOf(o)).toHaveLength(1);
  });
});

describe('manual runs, statuses and re-runs', () => {
  it('a stopped run is re-run from the failed step with the same event and the earlier outputs; steps before it are not repeated', async () => {
    const bobs = await content(bob, { collection_id: undefined });
    const o = await addOrchestration(
      alice,
      { event: 'manual' },
      `steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n  - action: set_metadata\n    with: { node_id: "${bobs}", key: kopi, value: "{steps.1.output.id}" }\n`,
    );
    const first = await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, { hva: 'kaffe' });
    await runGovernedOnce(h, ALLOW);
    const [stopped] = await runs(o);
    expect(stopped).toMatchObject({ id: first.run_id, status: 'stopped', failed_step: 2 });
    expect(stopped!.finished_at!.getTime()).toBeGreaterThanOrEqual(stopped!.started_at!.getTime());
    const made = await h.db.selectFrom('nodes').select('id').where('title', '=', 'Bestilt: kaffe').execute();
    expect(made).toHaveLength(1);

    await grantAccess(storesOn(h.db).graph, bob, { subject_id: alice.personId, object_id: bobs, access: 'member' });
    const again = await rerunOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, first.run_id);
    await runGovernedOnce(h, ALLOW);
    const rerun = (await runs(o)).find((r) => r.id === again.run_id);
    expect(rerun).toMatchObject({ status: 'completed', event: { type: 'manual', id: first.run_id, depth: 0, input: { hva: 'kaffe' } } });
    expect(await metadataOf(bobs)).toEqual({ kopi: made[0]!.id });
    expect(await h.db.selectFrom('nodes').select('id').where('title', '=', 'Bestilt: kaffe').execute()).toHaveLength(1);
    await expect(rerunOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, again.run_id)).rejects.toThrow(/bare en kjøring som stoppet/);
  });

  it('a run queued before its orchestration was disabled is logged as skipped', async () => {
    const o = await addOrchestration(alice, { event: 'manual' }, `steps:\n  - action: create_node\n    with: { node_kind: content, title: aldri }\n`);
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    await setOrchestrationEnabled(new PostgresOrchestrationStore(h.db), OPERATOR, o, false);
    await runGovernedOnce(h, ALLOW);
    expect((await runs(o)).map((r) => r.status)).toEqual(['skipped']);
    expect(await logOf(o)).toEqual([expect.objectContaining({ status: 'skipped', error: 'Ikke kjørt: orkestreringen er slått av' })]);
  });
});

describe('for_each', () => {
  it('runs once per element of an array in the event, bounded by the event budget', async () => {
    const o = await addOrchestration(
      alice,
      { event: 'manual' },
      `steps:\n  - action: create_node\n    for_each: "{event.input.commits}"\n    with: { node_kind: content, title: "Commit {index}: {item.id}", collection_id: "${inbox}" }\n`,
    );
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, { commits: ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id })) });
    await runGovernedOnce(h, { ...ALLOW, budget: 3 });
    const made = await h.db.selectFrom('nodes').select('title').where('title', 'like', 'Commit %').orderBy('title').execute();
    expect(made.map((n) => n.title)).toEqual(['Commit 0: a', 'Commit 1: b', 'Commit 2: c']);
    expect(await logOf(o)).toEqual([expect.objectContaining({ step: 1, status: 'skipped', error: expect.stringMatching(/^for_each element 3: Ikke kjørt: budsjettet på 3 handlinger/) })]);
  });
});

describe('schedule', () => {
  it('a due orchestration runs once as its creator, however many minutes were missed; the next time is counted from now', async () => {
    const o = await scheduled(alice, { event: 'schedule', cron: '* * * * *' }, `steps:\n  - action: create_node\n    with: { node_kind: content, title: "Klokka {event.scheduled_at}", collection_id: "${inbox}" }\n`);
    // Down for three hours: 180 minutes missed.
    await h.db.updateTable('orchestration_schedules').set({ next_at: new Date(Date.now() - 3 * 3600_000) }).where('orchestration_id', '=', o).execute();
    expect(await planScheduledRuns(new PostgresOrchestrationStore(h.db))).toBeGreaterThanOrEqual(1);
    expect(await planScheduledRuns(new PostgresOrchestrationStore(h.db))).toBe(0);
    const row = await h.db.selectFrom('orchestration_schedules').select('next_at').where('orchestration_id', '=', o).executeTakeFirstOrThrow();
    expect(row.next_at.getTime()).toBeGreaterThan(Date.now());
    expect(await runs(o)).toHaveLength(1);
    await runGovernedOnce(h, ALLOW);
    expect((await runs(o)).map((r) => r.status)).toEqual(['completed']);
    const made = await h.db.selectFrom('nodes').select(['title', 'created_by']).where('title', 'like', 'Klokka %').execute();
    expect(made).toEqual([{ title: expect.stringMatching(/^Klokka \d{4}-\d\d-\d\dT/), created_by: alice.personId }]);
  });
});
