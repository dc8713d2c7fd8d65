import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { runGovernedOnce } from '../../worker/src/__tests__/run-governed-once.js';
import { ctx, owner, post, setupOwnerScene } from './__tests__/owner-scene.js';
import { createCollection } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// Found attacking the merged result of issue 35 (docs/security.md, "Fifth attack (issue 35)",
// "Found on the merged result"): a co-admin of an orchestration (an admin of the collection it
// lives in) replaced the secret in its creator's script with their own token without taking it
// over. The script kept running as its creator, over a collection hidden from the co-admin, and
// sent what it read there to a service under the co-admin's account.

setupOwnerScene();

let server: Server;
let host: string;
/** What the hook got: the account (its token) and the body, as a chat service would file it. */
const received: { authorization: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ authorization: req.headers.authorization, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const worker = () => runGovernedOnce(ctx.database, { httpAllow: [host], cliAllow: [] });

describe("an orchestration's secrets, set by someone it does not run as", () => {
  it("a co-admin who has not taken it over cannot swap its creator's token for their own: 403, and what the creator's script reads of a hidden collection never reaches the co-admin's account", async () => {
    // The owner's private collection, and an orchestration in the shared collection that posts what is made there to a chat with the owner's token.
    const hidden = await createCollection(storesOn(ctx.database.db).graph, { title: 'Styret', ownerId: ctx.ownerId });
    const script = `steps:\n  - action: http_post\n    with: { url: "http://${host}/krok", body: { tekst: "{event.node.title}" }, headers: { Authorization: "Bearer {secrets.CHAT_TOKEN}" } }\n`;
    const made = await post('/intentions/create_node', owner, {
      node_kind: 'orchestration',
      title: 'Styret til chatten',
      content: script,
      metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'content' } } },
      collection_id: ctx.collectionId,
    });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    await post('/intentions/create_edge', owner, { source_id: id, target_id: hidden.id, edge_type: 'observes' }).expect(201);
    await post('/intentions/set_orchestration_secret', owner, { id, name: 'CHAT_TOKEN', value: 'eierens-token' }).expect(200);

    const admin = await ctx.addPerson('medadmin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    const swap = await post('/intentions/set_orchestration_secret', admin.authorization, { id, name: 'CHAT_TOKEN', value: 'medadminens-token' });
    expect(swap.status).toBe(403);
    expect(swap.body.error).toBe('Bare den orkestreringen kjører som kan sette hemmelighetene; ta den over med update_orchestration først');
    expect((await new PostgresOrchestrationStore(ctx.database.db).secretsOf(id)).get('CHAT_TOKEN')).toBe('eierens-token');

    await post('/intentions/create_node', owner, { node_kind: 'content', title: 'Hemmelig oppkjøp', collection_id: hidden.id }).expect(201);
    await worker();
    expect(received.map((r) => r.body).join()).toContain('Hemmelig oppkjøp');
    expect(received.filter((r) => r.authorization === 'Bearer medadminens-token')).toEqual([]);
  });

  it('the one it runs as may set them, and so may a co-admin once they have taken it over (its secrets dropped)', async () => {
    const made = await post('/intentions/create_node', owner, {
      node_kind: 'orchestration',
      title: 'Manuell',
      content: `steps:\n  - action: http_post\n    with: { url: "http://${host}/krok", headers: { Authorization: "Bearer {secrets.T}" } }\n`,
      metadata: { trigger: { event: 'manual' } },
      collection_id: ctx.collectionId,
    });
    const id = made.body.id as string;
    await post('/intentions/set_orchestration_secret', owner, { id, name: 'T', value: 'eierens' }).expect(200);
    const admin = await ctx.addPerson('overtaker-av-hemmelighet');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    await post('/intentions/update_orchestration', admin.authorization, { id, title: 'Overtatt' }).expect(200);
    await post('/intentions/set_orchestration_secret', admin.authorization, { id, name: 'T', value: 'adminens' }).expect(200);
    // The owner is now the one who has not taken it over.
    await post('/intentions/set_orchestration_secret', owner, { id, name: 'T', value: 'eierens-igjen' }).expect(403);
    expect((await new PostgresOrchestrationStore(ctx.database.db).secretsOf(id)).get('T')).toBe('adminens');
  });
});
