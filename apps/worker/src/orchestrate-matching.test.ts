import { describe, expect, it } from '@jest/globals';
import { getJob } from '@inntak/postgres/jobs';
import { deliveryInHand, receiveWebhook, createWebhook } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { addOrchestration, alice, ALLOW, bob, content, h, inbox, logOf, MARK, metadataOf, runsOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { createCollection, createEdge, tagNode, OPERATOR } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// Which events start an orchestration, as whom, and how its steps, variables and fallbacks run.

setupOrchestrationScene();

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
    const tagged = await tagNode(storesOn(h.db).graph, alice, { node_id: node, tag: 'NYHETER' });
    await tagNode(storesOn(h.db).graph, alice, { node_id: other, tag: 'sport' });
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
    const watched = (await createCollection(storesOn(h.db).graph, { title: 'Overvåket', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created' }, MARK('observed'));
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
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
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    // Not a real media node: media nodes are made by the service only (create_node refuses the kind).
    const media = await content(alice);
    const from = await createEdge(storesOn(h.db).graph, alice, { source_id: watched, target_id: media, edge_type: 'has_media' });
    const to = await createEdge(storesOn(h.db).graph, alice, { source_id: media, target_id: watched, edge_type: 'has_media' });
    await createEdge(storesOn(h.db).graph, alice, { source_id: elsewhere, target_id: media, edge_type: 'has_media' });
    expect((await runsOf(o)).sort()).toEqual([from.id, to.id].sort());
    await runGovernedOnce(h, ALLOW);
    expect(await metadataOf(watched)).toEqual({ linked: media });
  });
});

describe('webhook intake', () => {
  it('a push delivered to an observed collection runs the orchestration as the collection owner (the webhook node itself is no content)', async () => {
    const archive = (await createCollection(storesOn(h.db).graph, { title: 'Arkiv', ownerId: alice.personId })).id;
    const watched = (await createCollection(storesOn(h.db).graph, { title: 'Varsler', ownerId: alice.personId })).id;
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { node_kind: 'content' } }, `steps:
  - action: create_node
    with: { collection_id: "${archive}", node_kind: content, title: "Sett: {event.node.title}" }
  - action: set_metadata
    with: { node_id: "{event.node.id}", key: arkivert_som, value: "{steps.1.output.id}" }
`);
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    const webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: watched, templateId: 'forge-push', title: null });
    const store = new PostgresIntakeStore(h);
    const quiet = { error() {}, warn() {}, info() {}, debug() {} };
    const pushed = await receiveWebhook(
      { store, logger: quiet },
      deliveryInHand({
        token: webhook.token,
        body: JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'alice' }, commits: [] }),
        headers: { 'x-github-event': 'push' },
      }),
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
