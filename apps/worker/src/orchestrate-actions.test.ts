import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { getJob } from '@inntak/postgres/jobs';
import { OPERATOR, createCollection, createNode } from '@inntak/access';
import { runOrchestration } from '@inntak/orchestration';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { addOrchestration, alice, ALLOW, content, h, inbox, logOf, paths, received, registerTool, serverHost, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

// The actions that reach outside the graph: http_post, run_cli_tool and generate_tts.

setupOrchestrationScene();

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

  it('an allow-list entry without a port reaches only port 80/443: a local service on another port is refused and gets nothing (issue 35, finding 9)', async () => {
    // The attack: with the docs' own `ORCHESTRATION_HTTP_ALLOW=localhost`, any login's script
    // posted to every local service (here the test server's port) and read 4 KB of each answer.
    const o = await addOrchestration(alice, { event: 'manual' }, `steps:\n  - action: http_post\n    with: { url: "http://${serverHost}/admin", body: {} }\n`);
    const before = received.length;
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    await runGovernedOnce(h, { ...ALLOW, httpAllow: ['127.0.0.1'] });
    expect(received.length).toBe(before);
    expect((await logOf(o))[0]).toMatchObject({ status: 'failed', error: `http_post: verten ${serverHost} er ikke tillatt (ORCHESTRATION_HTTP_ALLOW)` });
  });

  it('run_cli_tool runs a registered tool without a shell, and a tool that overruns its timeout fails', async () => {
    const echo = await registerTool('echo', { command: 'echo', args: ['hei'] });
    // Two minutes unless stopped: a tool its timeout did not stop holds the run past the test's
    // timeout, so no clock is read here (a busy machine makes the rest take seconds).
    const slow = await registerTool('sleep', { command: 'sleep', args: ['120'], timeout_seconds: 0.3 });
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'cli' } }, `steps:
  - action: run_cli_tool
    with: { tool_id: "${echo}", args: ["{event.node.title}", "$(id)"] }
  - action: run_cli_tool
    with: { tool_id: "${slow}" }
`);
    await content(alice, { metadata: { traits: ['cli'] } });
    await runGovernedOnce(h, ALLOW);
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
    with: { node_id: "{event.node.id}", voice: nb, rate: 175 }
`);
    const node = await content(alice, { metadata: { traits: ['tale'] } });
    await runGovernedOnce(h, ALLOW);
    const log = await logOf(o);
    expect(log[0]).toMatchObject({ status: 'ok' });
    const job = await getJob(h.db, (log[0]!.output as { job_id: number }).job_id);
    expect(job).toMatchObject({ job_type: 'tts_generate', payload: { node_id: node, voice: 'nb', rate: 175 } });
  });
});

describe('http_post does not post into the service’s own intake (second attack on issue 22)', () => {
  it('a URL holding one of the service’s webhook tokens, in any spelling, fails the step and sends nothing', async () => {
    // The attack on a running service (ORCHESTRATION_HTTP_ALLOW naming the service's own host):
    // an orchestration posting each new node to its own collection's webhook URL; intake wrote
    // each as a new root event, so the loop never ended (577 nodes in 12 s).
    const own = (await createCollection(storesOn(h.db).graph, { title: 'Sløyfe', ownerId: alice.personId })).id;
    const { token } = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: own, templateId: null, title: 'Inn' });
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

describe('execution: no shell, encoded URLs (issue 22, finding 14)', () => {
  it('run_cli_tool passes sender text with shell metacharacters as one argv entry, never to a shell', async () => {
    const marker = `/tmp/inntak-shell-${process.pid}`;
    const title = `x'; touch ${marker}; echo "$(id)" \`id\` | cat > ${marker} && rm -rf ~ & $HOME *`;
    const echo = await registerTool('echo', { command: 'echo' });
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'skall' } }, `steps:
  - action: run_cli_tool
    with: { tool_id: "${echo}", args: ["{event.node.title}", "-n"] }
`);
    await createNode(storesOn(h.db).graph, alice, { node_kind: 'content', title, collection_id: inbox, metadata: { traits: ['skall'] } });
    await runGovernedOnce(h, ALLOW);
    expect((await logOf(o))[0]).toMatchObject({ status: 'ok', output: { exit_code: 0, stdout: `${title} -n\n` } });
    expect(existsSync(marker)).toBe(false);
  });

  it('a variable in an http_post URL is percent-encoded: it cannot change the path or add a query', async () => {
    const o = await addOrchestration(alice, { event: 'node.created', conditions: { has_trait: 'url' } }, `steps:
  - action: http_post
    with: { url: "http://${serverHost}/hooks/{event.node.title}?from=inntak", body: { id: "{event.node.id}" } }
`);
    await createNode(storesOn(h.db).graph, alice, { node_kind: 'content', title: '..%2F..%2Fadmin?x=1#', collection_id: inbox, metadata: { traits: ['url'] } });
    await createNode(storesOn(h.db).graph, alice, { node_kind: 'content', title: '../admin', collection_id: inbox, metadata: { traits: ['url'] } });
    await createNode(storesOn(h.db).graph, alice, { node_kind: 'content', title: '..', collection_id: inbox, metadata: { traits: ['url'] } });
    const before = paths.length;
    await runGovernedOnce(h, ALLOW);
    expect(paths.slice(before).sort()).toEqual(['/hooks/%2E%2E%252F%2E%2E%252Fadmin%3Fx%3D1%23?from=inntak', '/hooks/%2E%2E%2Fadmin?from=inntak'].sort());
    const log = await logOf(o);
    expect(log.filter((r) => r.status === 'ok')).toHaveLength(2);
    expect(log.find((r) => r.status === 'failed')).toMatchObject({ error: 'Variablene i url gir stisegmentet . eller .., som ville endre stien' });
  });
});
