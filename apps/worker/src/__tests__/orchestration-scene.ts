import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from '@jest/globals';
import { checkOrchestrationNode, type Trigger } from '@inntak/orchestration';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { createCollection, createNode, createPerson, grantAccess } from '@inntak/access';

// The scene of the orchestration tests: alice, bob and a system administrator, alice's inbox, and
// a local HTTP server that records what http_post sends it.

export let h: OpenTestDatabase;
export let alice: { personId: string; isAdmin: false };
export let bob: { personId: string; isAdmin: false };
/** A system administrator: only one registers a cli_tool (issue 22). */
export let root: { personId: string; isAdmin: true };
export let inbox: string;
let server: Server;
export let serverHost: string;
export const received: unknown[] = [];
/** The request targets the test server saw, as sent (path and query). */
export const paths: string[] = [];

/** Builds the scene in a database of the calling test file's own, and closes it after. */
export function setupOrchestrationScene(): void {
  beforeAll(async () => {
    h = await openTestDatabase();
    alice = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'alice' })).id, isAdmin: false };
    bob = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'bob' })).id, isAdmin: false };
    root = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'root', admin: true })).id, isAdmin: true };
    inbox = (await createCollection(storesOn(h.db).graph, { title: 'Innboks', ownerId: alice.personId })).id;
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
}

/** The allow-lists of a worker that may reach the test server (by its port: a bare host allows only 80/443). */
export const ALLOW = {
  get httpAllow() {
    return [serverHost];
  },
  cliAllow: ['sleep', 'echo'],
};

/** An orchestration made the way create_node makes one: trigger and script checked first. */
export async function addOrchestration(owner: { personId: string; isAdmin: boolean }, trigger: Trigger, script: string): Promise<string> {
  const checked = checkOrchestrationNode({ metadata: { trigger }, content: script });
  return (await createNode(storesOn(h.db).graph, owner, { node_kind: 'orchestration', title: 'test', content: script, metadata: { trigger: checked.trigger } })).id;
}

export async function logOf(orchestrationId: string) {
  const rows = await h.db.selectFrom('orchestration_log').selectAll().where('orchestration_id', '=', orchestrationId).orderBy('id').execute();
  return rows.map((r) => ({ step: r.step, action: r.action, fallback: r.fallback, status: r.status, error: r.error, output: r.output, event: r.event, job_id: r.job_id }));
}

export async function runsOf(orchestrationId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('orchestration_runs').select('subject_id').where('orchestration_id', '=', orchestrationId).orderBy('created_at').execute();
  return rows.map((r) => r.subject_id);
}

export async function metadataOf(nodeId: string) {
  return (await h.db.selectFrom('nodes').select('metadata').where('id', '=', nodeId).executeTakeFirstOrThrow()).metadata;
}

export async function content(owner = alice, extra: { collection_id?: string; metadata?: Record<string, unknown>; node_kind?: string; visibility?: 'hidden' | 'readable' } = {}) {
  return (await createNode(storesOn(h.db).graph, owner, { node_kind: 'content', title: 'Hei', collection_id: inbox, ...extra })).id;
}

export const MARK = (key: string) => `steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: ${key}, value: "sett av {event.type}" }\n`;

/** A cli_tool registered by a system administrator, granted to alice as a reader (she may run it). */
export async function registerTool(title: string, metadata: Record<string, unknown>): Promise<string> {
  const id = (await createNode(storesOn(h.db).graph, root, { node_kind: 'cli_tool', title, metadata })).id;
  await grantAccess(storesOn(h.db).graph, root, { subject_id: alice.personId, object_id: id, access: 'reader' });
  return id;
}
