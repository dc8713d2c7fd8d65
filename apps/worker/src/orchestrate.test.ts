import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS } from '@inntak/media';
import { checkOrchestrationNode, MAX_DEPTH, type Trigger } from '@inntak/orchestration';
import { createCollection, createEdge, createNode, createPerson, grantAccess, tagNode } from '@inntak/postgres/graph';
import { getJob } from '@inntak/postgres/jobs';
import { findWebhook, receiveWebhook } from '@inntak/intake';
import { createWebhook, PostgresIntakeStore } from '@inntak/postgres/intake';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { loadConfig } from './config.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';

let h: OpenTestDatabase;
let alice: { personId: string; isAdmin: false };
let bob: { personId: string; isAdmin: false };
/** A system administrator: only one registers a cli_tool (issue 22). */
let root: { personId: string; isAdmin: true };
let inbox: string;
let server: Server;
let serverHost: string;
const received: unknown[] = [];
/** The request targets the test server saw, as sent (path and query). */
const paths: string[] = [];

beforeAll(async () => {
  h = await openTestDatabase();
  alice = { personId: (await createPerson(h.db, { subject: 'alice' })).id, isAdmin: false };
  bob = { personId: (await createPerson(h.db, { subject: 'bob' })).id, isAdmin: false };
  root = { personId: (await createPerson(h.db, { subject: 'root', admin: true })).id, isAdmin: true };
  inbox = (await createCollection(h.db, { title: 'Innboks', ownerId: alice.personId })).id;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      paths.push(req.url ?? '');
      received.push(JSON.parse(body));
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, n: received.length }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  serverHost = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await h.dispose();
});

const ALLOW = { httpAllow: ['127.0.0.1'], cliAllow: ['sleep', 'echo'] };

/** An orchestration made the way create_node makes one: trigger and script checked first. */
async function addOrchestration(owner: { personId: string; isAdmin: boolean }, trigger: Trigger, script: string): Promise<string> {
  const checked = checkOrchestrationNode({ metadata: { trigger }, content: script });
  return (await createNode(h.db, owner, { node_kind: 'orchestration', title: 'test', content: script, metadata: { trigger: checked.trigger } })).id;
}

async function logOf(orchestrationId: string) {
  const rows = await h.db.selectFrom('orchestration_log').selectAll().where('orchestration_id', '=', orchestrationId).orderBy('id').execute();
  return rows.map((r) => ({ step: r.step, action: r.action, fallback: r.fallback, status: r.status, error: r.error, output: r.output, event: r.event, job_id: r.job_id }));
}

async function runsOf(orchestrationId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('orchestration_runs').select('subject_id').where('orchestration_id', '=', orchestrationId).orderBy('created_at').execute();
  return rows.map((r) => r.subject_id);
}

async function metadataOf(nodeId: string) {
  return (await h.db.selectFrom('nodes').select('metadata').where('id', '=', nodeId).executeTakeFirstOrThrow()).metadata;
}

async function content(owner = alice, extra: { collection_id?: string; metadata?: Record<string, unknown>; node_kind?: string; visibility?: 'hidden' | 'readable' } = {}) {
  return (await createNode(h.db, owner, { node_kind: 'content', title: 'Hei', collection_id: inbox, ...extra })).id;
}

const MARK = (key: string) => `steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: ${key}, value: "sett av {event.type}" }\n`;

describe('matching: conditions', () => {
  it('node_kind: a node of that kind queues one orchestrate job, whose step runs as the creator', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'melding' } }, MARK('kind_seen'));
    const hit = await content(alice, { node_kind: 'melding' });
    const miss = await content(alice);
    expect(await runsOf(o)).toEqual([hit]);
    await runGovernedOnce(h, ALLOW);
    expect(await metadataOf(hit)).toEqual({ kind_seen: 'sett av node.created' });
    expect(await metadataOf(miss)).toEqual({});
    const log = await logOf(o);
    expect(log).toEqual([
      expect.objectContaining({ step: 1, action: 'set_metadata', fallback: null, status: 'ok', output: { node_id: hit, key: 'kind_seen' }, event: { type: 'node.created', id: hit, depth: 0 } }),
    ]);
    expect(await getJob(h.db, Number(log[0]!.job_id))).toMatchObject({ job_type: 'orchestrate', status: 'completed' });
  });

  it('has_trait matches a node whose metadata.traits holds it', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'haster' } }, MARK('trait_seen'));
    const hit = await content(alice, { metadata: { traits: ['viktig', 'haster'] } });
    await content(alice, { metadata: { traits: ['viktig'] } });
    await content(alice, { metadata: { traits: 'haster' } });
    expect(await runsOf(o)).toEqual([hit]);
  });

  it('edge_type and has_tag: tagging a node with the tag matches, another tag does not', async () => {
    const o = await addOrchestration(alice, { event: 'edge.created', conditions: { edge_type: 'tagged', has_tag: ' Nyheter ' } }, `steps:
  - action: set_metadata
    with: { node_id: "{event.source.id}", key: tagged_as, value: "{event.target.metadata.tag}" }
`);
    const node = await content();
    const other = await content();
    const tagged = await tagNode(h.db, alice, { node_id: node, tag: 'NYHETER' });
    await tagNode(h.db, alice, { node_id: other, tag: 'sport' });
    expect(await runsOf(o)).toEqual([tagged.edge_id]);
    await runGovernedOnce(h, ALLOW);
    expect(await metadataOf(node)).toEqual({ tagged_as: 'nyheter' });
  });

  it('conditions combine with AND', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'communication', has_trait: 'ut' } }, MARK('and_seen'));
    await content(alice, { node_kind: 'communication' });
    await content(alice, { metadata: { traits: ['ut'] } });
    const both = await content(alice, { node_kind: 'communication', metadata: { traits: ['ut'] } });
    expect(await runsOf(o)).toEqual([both]);
  });
});

describe('matching: observes', () => {
  it('an orchestration observing a collection matches nodes created in it, not elsewhere', async () => {
    const watched = (await createCollection(h.db, { title: 'Overvåket', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created' }, MARK('observed'));
    await createEdge(h.db, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    const hit = await content(alice, { collection_id: watched });
    await content(alice, { collection_id: inbox });
    expect(await runsOf(o)).toEqual([hit]);
  });

  it('an orchestration observing a node matches edges to and from it', async () => {
    const watched = await content();
    const elsewhere = await content();
    const o = await addOrchestration(alice, { event: 'edge.created', conditions: { edge_type: 'has_media' } }, `steps:
  - action: set_metadata
    with: { node_id: "{event.edge.source_id}", key: linked, value: "{event.edge.target_id}" }
`);
    await createEdge(h.db, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    // Not a real media node: media nodes are made by the service only (create_node refuses the kind).
    const media = await content(alice);
    const from = await createEdge(h.db, alice, { source_id: watched, target_id: media, edge_type: 'has_media' });
    const to = await createEdge(h.db, alice, { source_id: media, target_id: watched, edge_type: 'has_media' });
    await createEdge(h.db, alice, { source_id: elsewhere, target_id: media, edge_type: 'has_media' });
    expect((await runsOf(o)).sort()).toEqual([from.id, to.id].sort());
    await runGovernedOnce(h, ALLOW);
    expect(await metadataOf(watched)).toEqual({ linked: media });
  });
});

describe('webhook intake', () => {
  it('a push delivered to an observed collection runs the orchestration as the collection owner (the webhook node itself is no content)', async () => {
    const archive = (await createCollection(h.db, { title: 'Arkiv', ownerId: alice.personId })).id;
    const watched = (await createCollection(h.db, { title: 'Varsler', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'content' } }, `steps:
  - action: create_node
    with: { collection_id: "${archive}", node_kind: content, title: "Sett: {event.node.title}" }
  - action: set_metadata
    with: { node_id: "{event.node.id}", key: arkivert_som, value: "{steps.1.output.id}" }
`);
    await createEdge(h.db, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    const webhook = await createWebhook(h.db, { collectionId: watched, templateId: 'forge-push', title: null });
    const store = new PostgresIntakeStore(h);
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    const pushed = await receiveWebhook(
      { store, logger: quiet },
      {
        target: await findWebhook(store, webhook.token),
        token: webhook.token,
        payload: { ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'alice' }, commits: [] },
        headers: { 'x-github-event': 'push' },
      },
    );
    await runGovernedOnce(h, ALLOW);
    const log = await logOf(o);
    expect(log.map((r) => [r.step, r.status, r.error])).toEqual([
      [1, 'ok', null],
      [2, 'ok', null],
    ]);
    expect(await metadataOf(pushed.node_id)).toMatchObject({ arkivert_som: (log[0]!.output as { id: string }).id });
  });
});

describe('the creator’s access', () => {
  it("a stranger's orchestration with { node_kind: content } never runs for a hidden node it cannot see", async () => {
    const o = await addOrchestration(bob, { event: 'node.created', conditions: { node_kind: 'content' } }, MARK('leaked'));
    const hidden = await content(alice);
    await runGovernedOnce(h, ALLOW);
    expect(await runsOf(o)).not.toContain(hidden);
    expect(await logOf(o)).toEqual([]);
    expect(await metadataOf(hidden)).toEqual({});
  });

  it('it runs for a node the stranger may read, but cannot write to it (no escalation)', async () => {
    const o = await addOrchestration(bob, { event: 'node.created', conditions: { node_kind: 'content' } }, MARK('escalated'));
    const readable = await content(alice, { visibility: 'readable' });
    expect(await runsOf(o)).toContain(readable);
    await runGovernedOnce(h, ALLOW);
    expect(await metadataOf(readable)).toEqual({});
    const log = (await logOf(o)).filter((r) => (r.event as { id: string }).id === readable);
    expect(log.map((r) => [r.status, r.error])).toEqual([
      ['failed', 'set_metadata: Ingen tilgang'],
      ['skipped', 'Stoppet etter feil i steg 1; 0 steg hoppet over'],
    ]);
  });
});

describe('steps, variables and fallbacks', () => {
  it('step fallback, then global fallback, then stop, each a log row; a missing variable fails its step', async () => {
    const o = await addOrchestration(
      alice,
      { event: 'node.created', conditions: { node_kind: 'communication', has_trait: 'fallback' } },
      `steps:
  - action: create_node
    with: { collection_id: "${inbox}", node_kind: content, title: "Sett: {event.node.title}" }
  - action: set_metadata
    with: { node_id: "{steps.1.output.id}", key: source, value: "{event.node.metadata.mangler}" }
    fallback:
      action: create_edge
      with: { source_id: "0190a0a0-0000-7000-8000-00000000dead", target_id: "{event.node.id}", edge_type: has_media }
  - action: set_metadata
    with: { node_id: "{event.node.id}", key: never, value: 1 }
fallback:
  action: set_metadata
  with: { node_id: "{event.node.id}", key: orchestration_error, value: "{error}" }
`,
    );
    const node = await content(alice, { node_kind: 'communication', metadata: { traits: ['fallback'] } });
    await runGovernedOnce(h, ALLOW);
    const log = await logOf(o);
    expect(log.map((r) => [r.step, r.action, r.fallback, r.status])).toEqual([
      [1, 'create_node', null, 'ok'],
      [2, 'set_metadata', null, 'failed'],
      [2, 'create_edge', 'step', 'fallback_failed'],
      [2, 'set_metadata', 'global', 'fallback_ok'],
      [2, null, null, 'skipped'],
    ]);
    expect(log[1]!.error).toBe('Variabelen {event.node.metadata.mangler} finnes ikke');
    expect(log[2]!.error).toBe('create_edge: Finnes ikke: source_id');
    expect(log[4]!.error).toBe('Stoppet etter feil i steg 2; 1 steg hoppet over');
    const created = (log[0]!.output as { id: string }).id;
    expect(await h.db.selectFrom('nodes').select('title').where('id', '=', created).executeTakeFirstOrThrow()).toEqual({ title: 'Sett: Hei' });
    expect(await metadataOf(node)).toEqual({ traits: ['fallback'], orchestration_error: log[2]!.error });
  });
});

describe('loops', () => {
  it(`an orchestration whose own action triggers it again stops at depth ${MAX_DEPTH}, logged as skipped`, async () => {
    const loop = (await createCollection(h.db, { title: 'Løkke', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created' }, `steps:
  - action: create_node
    with: { collection_id: "${loop}", node_kind: content, title: "Ekko" }
`);
    await createEdge(h.db, alice, { source_id: o, target_id: loop, edge_type: 'observes' });
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

/** A cli_tool registered by a system administrator, granted to alice as a reader (she may run it). */
async function registerTool(title: string, metadata: Record<string, unknown>): Promise<string> {
  const id = (await createNode(h.db, root, { node_kind: 'cli_tool', title, metadata })).id;
  await grantAccess(h.db, root, { subject_id: alice.personId, object_id: id, access: 'reader' });
  return id;
}

describe('http_post and run_cli_tool', () => {
  it('http_post to an allowed host hands back status and body; a host not allowed is refused', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'http' } }, `steps:
  - action: http_post
    with: { url: "http://${serverHost}/hook", body: { id: "{event.node.id}", title: "{event.node.title}" } }
  - action: http_post
    with: { url: "http://localhost:1/hook", body: { n: "{steps.1.output.json.n}" } }
`);
    const node = await content(alice, { metadata: { traits: ['http'] } });
    await runGovernedOnce(h, ALLOW);
    expect(received).toContainEqual({ id: node, title: 'Hei' });
    const log = await logOf(o);
    expect(log[0]).toMatchObject({ status: 'ok', output: { status: 201, truncated: false, json: { ok: true } } });
    expect(log[1]).toMatchObject({ status: 'failed', error: 'http_post: verten localhost:1 er ikke tillatt (ORCHESTRATION_HTTP_ALLOW)' });
  });

  it('run_cli_tool runs a registered tool without a shell, and a tool that overruns its timeout fails', async () => {
    const echo = await registerTool('echo', { command: 'echo', args: ['hei'] });
    const slow = await registerTool('sleep', { command: 'sleep', args: ['5'], timeout_seconds: 0.3 });
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'cli' } }, `steps:
  - action: run_cli_tool
    with: { tool_id: "${echo}", args: ["{event.node.title}", "$(id)"] }
  - action: run_cli_tool
    with: { tool_id: "${slow}" }
`);
    await content(alice, { metadata: { traits: ['cli'] } });
    const started = Date.now();
    await runGovernedOnce(h, ALLOW);
    expect(Date.now() - started).toBeLessThan(4000);
    const log = await logOf(o);
    expect(log[0]).toMatchObject({ status: 'ok', output: { exit_code: 0, stdout: 'hei Hei $(id)\n', stderr: '' } });
    expect(log[1]).toMatchObject({ status: 'failed', error: 'run_cli_tool: sleep ble stoppet etter 0.3 s (tidsgrense)' });
  });

  it('a command not on ORCHESTRATION_CLI_ALLOW is refused', async () => {
    const tool = await registerTool('rm', { command: 'rm', args: ['-rf', '/tmp/nothing-here'] });
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'rm' } }, `steps:\n  - action: run_cli_tool\n    with: { tool_id: "${tool}" }\n`);
    await content(alice, { metadata: { traits: ['rm'] } });
    await runGovernedOnce(h, ALLOW);
    expect((await logOf(o))[0]).toMatchObject({ status: 'failed', error: 'run_cli_tool: kommandoen rm er ikke tillatt (ORCHESTRATION_CLI_ALLOW)' });
  });

  it('generate_tts queues a tts_generate job for the node', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'tale' } }, `steps:
  - action: generate_tts
    with: { node_id: "{event.node.id}", voice: nb, rate: 1.2 }
`);
    const node = await content(alice, { metadata: { traits: ['tale'] } });
    await runGovernedOnce(h, ALLOW);
    const log = await logOf(o);
    expect(log[0]).toMatchObject({ status: 'ok' });
    const job = await getJob(h.db, (log[0]!.output as { job_id: number }).job_id);
    expect(job).toMatchObject({ job_type: 'tts_generate', payload: { node_id: node, voice: 'nb', rate: 1.2 } });
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
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }, []).ttsJobsPerPerson).toBe(2);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', TTS_JOBS_PER_PERSON: '5' }, []).ttsJobsPerPerson).toBe(5);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', TTS_JOBS_PER_PERSON: '0' }, [])).toThrow('TTS_JOBS_PER_PERSON must be an integer from 1 to 1000; got "0"');
  });

  it('six generate_tts steps of one run queue two jobs for its creator; the third step fails naming the limit', async () => {
    // The attack on a running service: the API refuses a third TTS job of one person at once
    // (429), but a stranger's orchestration with six generate_tts steps queued six, and one with
    // 50 steps queues 50 per write, each up to TTS_MAX_AUDIO_SECONDS of audio.
    const carol = { personId: (await createPerson(h.db, { subject: 'carol-tts' })).id, isAdmin: false as const };
    const steps = Array.from({ length: 6 }, () => '  - action: generate_tts\n    with: { node_id: "{event.node.id}" }\n').join('');
    const o = await addOrchestration(carol, { event: 'node.created', conditions: { has_trait: 'mange-opplesninger' } }, `steps:\n${steps}`);
    await createNode(h.db, carol, { node_kind: 'content', title: 'Les meg', metadata: { traits: ['mange-opplesninger'] } });
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

describe('http_post does not post into the service’s own intake (second attack on issue 22)', () => {
  it('a URL holding one of the service’s webhook tokens, in any spelling, fails the step and sends nothing', async () => {
    // The attack on a running service (ORCHESTRATION_HTTP_ALLOW naming the service's own host):
    // an orchestration posting each new node to its own collection's webhook URL; intake wrote
    // each as a new root event, so the loop never ended (577 nodes in 12 s).
    const own = (await createCollection(h.db, { title: 'Sløyfe', ownerId: alice.personId })).id;
    const { token } = await createWebhook(h.db, { collectionId: own, templateId: null, title: 'Inn' });
    const spellings = [
      `http://${serverHost}/api/webhook/${token}`,
      `http://${serverHost}/API/Webhook/%${token.charCodeAt(0).toString(16)}${token.slice(1)}`,
      `http://${serverHost}/videre?til=${encodeURIComponent(`/api/webhook/${token.toUpperCase()}`)}`,
    ];
    const before = received.length;
    for (const url of spellings) {
      const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'sløyfe' } }, `steps:\n  - action: http_post\n    with: { url: "${url}", body: { title: igjen } }\n`);
      await content(alice, { collection_id: own, metadata: { traits: ['sløyfe'] } });
      await runGovernedOnce(h, ALLOW);
      expect((await logOf(o))[0]).toMatchObject({
        status: 'failed',
        error: 'http_post: adressen går til en av tjenestens egne webhooker; bruk create_node (en kjede gjennom intake ville startet på nytt hver gang)',
      });
      await h.db.deleteFrom('nodes').where('id', '=', o).execute();
    }
    expect(received.length).toBe(before);
    // Another UUID in a URL is no reason to refuse.
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'annen' } }, `steps:\n  - action: http_post\n    with: { url: "http://${serverHost}/ting/${crypto.randomUUID()}", body: {} }\n`);
    await content(alice, { metadata: { traits: ['annen'] } });
    await runGovernedOnce(h, ALLOW);
    expect((await logOf(o))[0]).toMatchObject({ status: 'ok' });
  });
});

describe('budget per root event (issue 22, finding 7)', () => {
  it('ORCHESTRATION_BUDGET configures it: default 100, at least 1', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }, []).orchestrationBudget).toBe(100);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', ORCHESTRATION_BUDGET: '7' }, []).orchestrationBudget).toBe(7);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://x/y', ORCHESTRATION_BUDGET: '0' }, [])).toThrow('ORCHESTRATION_BUDGET must be an integer of at least 1; got "0"');
  });

  it('three create_node steps into the observed collection stop at the budget: at most that many writes, the rest logged as skipped', async () => {
    const budget = 10;
    const fan = (await createCollection(h.db, { title: 'Vifte', ownerId: alice.personId })).id;
    const step = `  - action: create_node\n    with: { collection_id: "${fan}", node_kind: content, title: "Kopi" }\n`;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'content' } }, `steps:\n${step}${step}${step}`);
    await createEdge(h.db, alice, { source_id: o, target_id: fan, edge_type: 'observes' });
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
    const fan = (await createCollection(h.db, { title: 'Vifte 2', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'budsjett' } }, MARK('sett'));
    await createEdge(h.db, alice, { source_id: o, target_id: fan, edge_type: 'observes' });
    const first = await content(alice, { collection_id: fan, node_kind: 'budsjett' });
    const second = await content(alice, { collection_id: fan, node_kind: 'budsjett' });
    await runGovernedOnce(h, { ...ALLOW, budget: 1 });
    expect(await metadataOf(first)).toEqual({ sett: 'sett av node.created' });
    expect(await metadataOf(second)).toEqual({ sett: 'sett av node.created' });
  });
});

describe('execution: no shell, encoded URLs (issue 22, finding 14)', () => {
  it('run_cli_tool passes sender text with shell metacharacters as one argv entry, never to a shell', async () => {
    const marker = `/tmp/inntak-shell-${process.pid}`;
    const title = `x'; touch ${marker}; echo "$(id)" \`id\` | cat > ${marker} && rm -rf ~ & $HOME *`;
    const echo = await registerTool('echo', { command: 'echo' });
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'skall' } }, `steps:
  - action: run_cli_tool
    with: { tool_id: "${echo}", args: ["{event.node.title}", "-n"] }
`);
    await createNode(h.db, alice, { node_kind: 'content', title, collection_id: inbox, metadata: { traits: ['skall'] } });
    await runGovernedOnce(h, ALLOW);
    expect((await logOf(o))[0]).toMatchObject({ status: 'ok', output: { exit_code: 0, stdout: `${title} -n\n` } });
    expect(existsSync(marker)).toBe(false);
  });

  it('a variable in an http_post URL is percent-encoded: it cannot change the path or add a query', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'url' } }, `steps:
  - action: http_post
    with: { url: "http://${serverHost}/hooks/{event.node.title}?from=inntak", body: { id: "{event.node.id}" } }
`);
    await createNode(h.db, alice, { node_kind: 'content', title: '..%2F..%2Fadmin?x=1#', collection_id: inbox, metadata: { traits: ['url'] } });
    await createNode(h.db, alice, { node_kind: 'content', title: '../admin', collection_id: inbox, metadata: { traits: ['url'] } });
    await createNode(h.db, alice, { node_kind: 'content', title: '..', collection_id: inbox, metadata: { traits: ['url'] } });
    const before = paths.length;
    await runGovernedOnce(h, ALLOW);
    expect(paths.slice(before).sort()).toEqual(['/hooks/%2E%2E%252F%2E%2E%252Fadmin%3Fx%3D1%23?from=inntak', '/hooks/%2E%2E%2Fadmin?from=inntak'].sort());
    const log = await logOf(o);
    expect(log.filter((r) => r.status === 'ok')).toHaveLength(2);
    expect(log.find((r) => r.status === 'failed')).toMatchObject({ error: 'Variablene i url gir stisegmentet . eller .., som ville endre stien' });
  });
});
