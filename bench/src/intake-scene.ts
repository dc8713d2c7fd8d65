import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type pg from 'pg';
import { OPERATOR, createCollection, createPerson, grantAccess } from '@inntak/access';
import { webhookContentNode } from '@inntak/graph';
import { openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { renderPayload } from '@inntak/templates';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

/**
 * What bench:intake and bench:intake-costs write into: a collection with 5 access rows (its
 * owner and 4 readers), a forge-push webhook on it, and the minimal write's own tables.
 */
export interface IntakeScene {
  handle: DatabaseHandle;
  collectionId: string;
  webhook: { id: string; token: string };
  accessRows: number;
}

export const EVENT_HEADERS = { 'x-github-event': 'push' };

/**
 * One delivery of `body` to an API on 127.0.0.1:`port`, as GitHub sends it (its own delivery id,
 * so the duplicate check runs on every one); resolves with the node id of a 200, rejects otherwise.
 */
export function postDelivery(port: number, agent: http.Agent, token: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/api/webhook/${token}`,
        agent,
        headers: { 'content-type': 'application/json', ...EVENT_HEADERS, 'x-github-delivery': randomUUID() },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve((JSON.parse(text) as { node_id: string }).node_id) : reject(new Error(String(res.statusCode)))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until `post` succeeds once (the API process came up), for at most 15 s. */
export async function untilAnswered(post: () => Promise<unknown>, what: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await post();
      return;
    } catch {
      if (i > 150) throw new Error(`API ${what} did not come up`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** A 1.9 KB GitHub push with three commits. */
export function pushPayload(): object {
  const commit = (i: number) => ({
    id: randomUUID().replace(/-/g, '').padEnd(40, '0'),
    message: `Fix the flux capacitor (${i})\n\nLonger explanation of the change.`,
    timestamp: new Date().toISOString(),
    url: `https://github.com/acme/widget/commit/${i}`,
    author: { name: 'Kari Nordmann', email: 'kari@example.com', username: 'kari' },
    added: [],
    removed: [],
    modified: ['src/flux.ts'],
  });
  return {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0000000000000000000000000000000000000001',
    repository: { id: 1, name: 'widget', full_name: 'acme/widget', html_url: 'https://github.com/acme/widget', owner: { login: 'acme' } },
    pusher: { name: 'kari', email: 'kari@example.com' },
    sender: { login: 'kari', id: 2 },
    created: false,
    deleted: false,
    forced: false,
    compare: 'https://github.com/acme/widget/compare/6113728f27ae...000000000001',
    commits: [commit(1), commit(2), commit(3)],
    head_commit: commit(3),
  };
}

/** The node the intake stores for this payload: the template's keys and the event headers kept for re-rendering. */
export function sampleNode(webhookId: string, payload: object) {
  const rendered = renderPayload('forge-push', payload, EVENT_HEADERS).result;
  return webhookContentNode({
    webhookId,
    title: rendered.title,
    content: rendered.content,
    payload,
    extraMetadata: { ...rendered.extra_metadata, event_headers: EVENT_HEADERS },
  });
}

/**
 * The minimal write (issue 40): node, edge and the collection's access rows into tables of the
 * same columns and keys as the graph's, with no trigger and only the indexes a graph needs to
 * be walked (ids, edge ends, access by subject and object). It is the same work at every
 * commit of the repository, so the ratio to it shows what the intake has come to cost, where
 * pgbench of the intake's own SQL grows with it.
 */
const MINIMAL_TABLES = `
create schema if not exists bench_minimal;
create table bench_minimal.nodes (like public.nodes including defaults including constraints, primary key (id));
create table bench_minimal.edges (like public.edges including defaults including constraints, primary key (id),
  foreign key (source_id) references bench_minimal.nodes on delete cascade,
  foreign key (target_id) references public.nodes on delete cascade);
create index on bench_minimal.edges (source_id, id);
create index on bench_minimal.edges (target_id, id);
create table bench_minimal.node_access (like public.node_access including defaults including constraints, primary key (subject_id, object_id),
  foreign key (subject_id) references public.nodes on delete cascade,
  foreign key (object_id) references bench_minimal.nodes on delete cascade);
create index on bench_minimal.node_access (object_id);
`;

/** The minimal write as SQL with pgbench's variables: `:n`, `:e` make the ids; one transaction. */
export function minimalWriteScript(id: (variable: string) => string): string[] {
  return [
    'begin;',
    `insert into bench_minimal.nodes (id, node_kind, title, content, visibility, metadata, created_by) values (${id('n')}, :kind, :title, :content, :visibility, :metadata, :webhook);`,
    `insert into bench_minimal.edges (id, source_id, target_id, edge_type, metadata, system, created_by) values (${id('e')}, ${id('n')}, :collection, 'belongs_to', '{}', true, :webhook);`,
    `insert into bench_minimal.node_access (subject_id, object_id, access, via_edge) select a.subject_id, ${id('n')}, a.access, ${id('e')} from public.node_access a where a.object_id = :collection;`,
    'commit;',
  ];
}

/** The minimal write through one client (bench:intake-costs, and the ceiling where pgbench is missing). */
export async function minimalWrite(client: pg.ClientBase, scene: IntakeScene, n: MinimalNode, nodeId: string, edgeId: string): Promise<void> {
  await client.query('begin');
  await client.query({
    name: 'bench_minimal_node',
    text: 'insert into bench_minimal.nodes (id, node_kind, title, content, visibility, metadata, created_by) values ($1, $2, $3, $4, $5, $6, $7)',
    values: [nodeId, n.node_kind, n.title, n.content, n.visibility, JSON.stringify(n.metadata), scene.webhook.id],
  });
  await client.query({
    name: 'bench_minimal_edge',
    text: "insert into bench_minimal.edges (id, source_id, target_id, edge_type, metadata, system, created_by) values ($1, $2, $3, 'belongs_to', '{}', true, $4)",
    values: [edgeId, nodeId, scene.collectionId, scene.webhook.id],
  });
  await client.query({
    name: 'bench_minimal_access',
    text: 'insert into bench_minimal.node_access (subject_id, object_id, access, via_edge) select a.subject_id, $1, a.access, $2 from public.node_access a where a.object_id = $3',
    values: [nodeId, edgeId, scene.collectionId],
  });
  await client.query('commit');
}

export interface MinimalNode {
  node_kind: string;
  title: string | null;
  content: string | null;
  visibility: string;
  metadata: unknown;
}

export async function intakeScene(url: string): Promise<IntakeScene> {
  const handle = openDatabase({ connectionString: url, logger: quiet });
  const owner = await createPerson(storesOn(handle.db).graph, { subject: 'bench' });
  const collection = await createCollection(storesOn(handle.db).graph, { title: 'Bench', ownerId: owner.id });
  for (let i = 0; i < 4; i++) {
    const reader = await createPerson(storesOn(handle.db).graph, { subject: `reader-${i}` });
    await grantAccess(storesOn(handle.db).graph, OPERATOR, { subject_id: reader.id, object_id: collection.id, access: 'reader' });
  }
  const webhook = await createWebhook(storesOn(handle.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: 'forge-push' });
  await handle.pool.query(MINIMAL_TABLES);
  const accessRows = Number((await handle.pool.query('select count(*) from node_access where object_id = $1', [collection.id])).rows[0].count);
  return { handle, collectionId: collection.id, webhook, accessRows };
}
