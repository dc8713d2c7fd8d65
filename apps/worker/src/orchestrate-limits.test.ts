import { describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS } from '@inntak/media';
import { MAX_DEPTH } from '@inntak/orchestration';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { loadConfig } from './config.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { addOrchestration, alice, ALLOW, content, h, logOf, MARK, metadataOf, runsOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { createCollection, createEdge, createNode, createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// What stops a cascade of orchestrations: the depth limit, the TTS queue limit and the budget per root event.

setupOrchestrationScene();

describe('loops', () => {
  it(`an orchestration whose own action triggers it again stops at depth ${MAX_DEPTH}, logged as skipped`, async () => {
    const loop = (await createCollection(storesOn(h.db).graph, { title: 'Løkke', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created' }, `steps:
  - action: create_node
    with: { collection_id: "${loop}", node_kind: content, title: "Ekko" }
`);
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: loop, edge_type: 'observes' });
    await content(alice, { collection_id: loop });
    for (let i = 0; i < MAX_DEPTH + 2; i++) await runGovernedOnce(h, ALLOW);
    const log = await logOf(o);
    expect(log.filter((r) => r.status === 'ok')).toHaveLength(MAX_DEPTH);
    const skipped = log.filter((r) => r.status === 'skipped');
    expect(skipped).toEqual([expect.objectContaining({ step: null, action: null, job_id: null, event: expect.objectContaining({ depth: MAX_DEPTH }) })]);
    expect(skipped[0]!.error).toBe('Ikke kjørt: dybdegrensen (5) er nådd; hendelsen kom fra en kjede av 5 orkestreringskjøringer');
    const { rows } = await sql<{ n: string }>`select count(*) as n from edges where target_id = ${loop} and edge_type = 'belongs_to'`.execute(h.db);
    expect(Number(rows[0]!.n)).toBe(1 + MAX_DEPTH);
  });
});

describe('generate_tts stays in its cascade (second attack on issue 22)', () => {
  it('an orchestration reading its own media aloud stops at the depth limit: the media of a job an orchestration queued is an event of that cascade, not a new root', async () => {
    // The attack: a TTS job carried no depth and no root, so the media node it made started a
    // fresh cascade; an orchestration reading every new media node aloud ran forever (73 files,
    // 95 MB in 30 s on a running service, each title longer than the last).
    const start = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'les-opp' } }, `steps:
  - action: generate_tts
    with: { node_id: "{event.node.id}" }
`);
    const loop = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'media' } }, `steps:
  - action: generate_tts
    with: { node_id: "{event.node.id}" }
`);
    const root = await content(alice, { metadata: { traits: ['les-opp'] } });
    // Scaled down: without the fix the loop stops only when the title ("Opplesning: " longer each
    // time) passes this text limit, after about 15 files.
    const speechLimits = { ...DEFAULT_SPEECH_LIMITS, maxTextChars: 200 };
    const media = { files: new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-tts-loop-'))), synthesizer: new EspeakSpeechSynthesizer(), speechLimits };
    for (let i = 0; i < 20; i++) await runGovernedOnce(h, ALLOW, media);

    const made = await h.db.selectFrom('nodes').select('id').where('node_kind', '=', 'media').where('created_by', 'in', [root, ...(await runsOf(loop))]).execute();
    expect(made.length).toBeGreaterThan(0);
    expect(made.length).toBeLessThanOrEqual(MAX_DEPTH);
    const runs = await h.db.selectFrom('orchestration_runs').select(['orchestration_id', 'depth', 'root_id']).where('orchestration_id', 'in', [start, loop]).orderBy('depth').execute();
    expect(new Set(runs.map((r) => r.root_id))).toEqual(new Set([root]));
    expect(runs.map((r) => r.depth)).toEqual([...Array(MAX_DEPTH).keys()]);
    expect((await logOf(loop)).filter((r) => r.status === 'skipped').map((r) => r.error)).toEqual([expect.stringMatching(/^Ikke kjørt: dybdegrensen \(5\) er nådd/)]);
  });
});

describe('generate_tts counts against TTS_JOBS_PER_PERSON (second attack on issue 22)', () => {
  it('TTS_JOBS_PER_PERSON configures the worker as the API: default 2, 1 to 1000', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }, []).orchestration.ttsJobsPerPerson).toBe(2);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', TTS_JOBS_PER_PERSON: '5' }, []).orchestration.ttsJobsPerPerson).toBe(5);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', TTS_JOBS_PER_PERSON: '0' }, [])).toThrow('TTS_JOBS_PER_PERSON must be an integer from 1 to 1000; got "0"');
  });

  it('six generate_tts steps of one run queue two jobs for its creator; the third step fails naming the limit', async () => {
    // The attack on a running service: the API refuses a third TTS job of one person at once
    // (429), but a stranger's orchestration with six generate_tts steps queued six, and one with
    // 50 steps queues 50 per write, each up to TTS_MAX_AUDIO_SECONDS of audio.
    const carol = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'carol-tts' })).id, isAdmin: false as const };
    const steps = Array.from({ length: 6 }, () => '  - action: generate_tts\n    with: { node_id: "{event.node.id}" }\n').join('');
    const o = await addOrchestration(carol, { event: 'node.created', conditions: { has_trait: 'mange-opplesninger' } }, `steps:\n${steps}`);
    await createNode(storesOn(h.db).graph, carol, { node_kind: 'content', title: 'Les meg', metadata: { traits: ['mange-opplesninger'] } });
    // Jobs run one at a time: the TTS jobs the run queues are still queued while its steps run.
    await runGovernedOnce(h, { ...ALLOW, ttsJobsPerPerson: 2 });
    const queued = await h.db
      .selectFrom('job_queue')
      .select('id')
      .where('job_type', '=', 'tts_generate')
      .where(sql<boolean>`payload ->> 'requested_by' = ${carol.personId}`)
      .execute();
    const log = await logOf(o);
    expect(log.filter((r) => r.action === 'generate_tts' && r.status === 'ok')).toHaveLength(2);
    expect(log.find((r) => r.status === 'failed')).toMatchObject({ step: 3, error: 'generate_tts: Du har for mange opplesninger i kø; vent til en er ferdig: høyst 2 om gangen' });
    expect(queued).toHaveLength(2);
  });
});

describe('budget per root event (issue 22, finding 7)', () => {
  it('ORCHESTRATION_BUDGET configures it: default 100, at least 1', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }, []).orchestration.budget).toBe(100);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', ORCHESTRATION_BUDGET: '7' }, []).orchestration.budget).toBe(7);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', ORCHESTRATION_BUDGET: '0' }, [])).toThrow('ORCHESTRATION_BUDGET must be an integer of at least 1; got "0"');
  });

  it('three create_node steps into the observed collection stop at the budget: at most that many writes, the rest logged as skipped', async () => {
    const budget = 10;
    const fan = (await createCollection(storesOn(h.db).graph, { title: 'Vifte', ownerId: alice.personId })).id;
    const step = `  - action: create_node\n    with: { collection_id: "${fan}", node_kind: content, title: "Kopi" }\n`;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'content' } }, `steps:\n${step}${step}${step}`);
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: fan, edge_type: 'observes' });
    const root = await content(alice, { collection_id: fan });
    for (let i = 0; i < MAX_DEPTH + 2; i++) await runGovernedOnce(h, { ...ALLOW, budget });

    // Without a budget: 3 + 9 + 27 + 81 + 243 = 363 nodes and 121 runs.
    const { rows } = await sql<{ n: string }>`select count(*) as n from edges where target_id = ${fan} and edge_type = 'belongs_to' and source_id <> ${o}`.execute(h.db);
    const created = Number(rows[0]!.n) - 1;
    const runs = await h.db.selectFrom('orchestration_runs').select(['depth', 'root_id']).where('orchestration_id', '=', o).execute();
    const log = await logOf(o);
    const actions = log.filter((r) => r.action !== null && r.status !== 'skipped');
    expect(created).toBeGreaterThan(0);
    expect(created).toBeLessThanOrEqual(budget);
    // Every action and every run the cascade queued spent one; the root's own run is its writer's.
    expect(actions.length + runs.filter((r) => r.depth > 0).length).toBe(budget);
    expect(runs.every((r) => r.root_id === root)).toBe(true);
    expect(await h.db.selectFrom('orchestration_budgets').select('spent').where('root_id', '=', root).executeTakeFirstOrThrow()).toEqual({ spent: budget });
    const skipped = log.filter((r) => r.status === 'skipped');
    expect(skipped.length).toBeGreaterThan(0);
    for (const row of skipped) expect(row.error).toMatch(new RegExp(`^Ikke kjørt: budsjettet på ${budget} handlinger for hendelsen ${root} er brukt opp`));
    // A step the budget refused is a row of its own: visible, with what was left undone.
    expect(skipped.some((r) => r.action === 'create_node' && r.job_id !== null)).toBe(true);
  });

  it('a second root event gets a budget of its own', async () => {
    const fan = (await createCollection(storesOn(h.db).graph, { title: 'Vifte 2', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'budsjett' } }, MARK('sett'));
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: fan, edge_type: 'observes' });
    const first = await content(alice, { collection_id: fan, node_kind: 'budsjett' });
    const second = await content(alice, { collection_id: fan, node_kind: 'budsjett' });
    await runGovernedOnce(h, { ...ALLOW, budget: 1 });
    expect(await metadataOf(first)).toEqual({ sett: 'sett av node.created' });
    expect(await metadataOf(second)).toEqual({ sett: 'sett av node.created' });
  });
});
