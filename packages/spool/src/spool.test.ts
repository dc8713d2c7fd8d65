import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uuidv7 } from '@inntak/core';
import { webhookBelongsToEdge, webhookContentNode } from '@inntak/graph';
import { NatsSpool } from './nats-spool.js';
import { SqliteSpool } from './sqlite-spool.js';
import { tokenHash, type Spool, type SpoolEntry } from '@inntak/intake';
import { describeWithEngine, NATS_URL } from '@inntak/test-support';

function entry(webhookId: string, collectionId: string, n: number): SpoolEntry {
  const receivedAt = new Date(Date.now() + n);
  const node = webhookContentNode({ webhookId, title: `push ${n}`, content: 'x'.repeat(100), payload: { n }, extraMetadata: { event: 'push' } });
  const edge = webhookBelongsToEdge(node.id, collectionId, webhookId);
  return { node, edge, log: { id: uuidv7(receivedAt.getTime()), webhookId, receivedAt, deliveryId: `d-${n}`, event: 'push', bytes: 10, durationMs: 0 } };
}

interface Adapter {
  name: string;
  open(maxBytes: number): Promise<{ spool: Spool; reopen(): Promise<Spool>; dispose(): Promise<void> }>;
}

const dirs: string[] = [];
const sqlite: Adapter = {
  name: 'the SQLite spool',
  async open(maxBytes) {
    const dir = join(mkdtempSync(join(tmpdir(), 'inntak-spool-')), 'spool');
    dirs.push(dir);
    const spool = new SqliteSpool({ dir, maxBytes });
    return { spool, reopen: async () => new SqliteSpool({ dir, maxBytes }), dispose: () => spool.close() };
  },
};
const nats: Adapter = {
  name: 'the NATS JetStream spool',
  async open(maxBytes) {
    const stream = `INNTAK_SPOOL_TEST_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
    const spool = await NatsSpool.open({ url: NATS_URL, maxBytes, stream });
    return { spool, reopen: () => NatsSpool.open({ url: NATS_URL, maxBytes, stream }), dispose: () => spool.destroy() };
  },
};

afterAll(() => {
  for (const dir of dirs) rmSync(join(dir, '..'), { recursive: true, force: true });
});

function conformance(adapter: Adapter): void {
  const webhookId = uuidv7();
  const collectionId = uuidv7();

  it('gives back what was appended, in arrival order, until it is removed', async () => {
    const { spool, dispose } = await adapter.open(1_000_000);
    const appended = Array.from({ length: 20 }, (_, n) => entry(webhookId, collectionId, n));
    await Promise.all(appended.map((e) => spool.append(e)));
    const peeked = await spool.peek(100);
    expect(peeked.map((e) => e.node.id)).toEqual(appended.map((e) => e.node.id));
    expect(peeked[3]!.node.metadata).toEqual(appended[3]!.node.metadata);
    expect(peeked[3]!.log.receivedAt.getTime()).toBe(appended[3]!.log.receivedAt.getTime());
    expect(peeked[3]!.edge).toEqual(appended[3]!.edge);
    const stats = await spool.stats();
    expect(stats.entries).toBe(20);
    expect(stats.bytes).toBeGreaterThan(0);
    expect(stats.oldestAt!.getTime()).toBe(appended[0]!.log.receivedAt.getTime());

    await spool.remove(peeked.slice(0, 5).map((e) => e.ref));
    expect((await spool.peek(3)).map((e) => e.node.id)).toEqual(appended.slice(5, 8).map((e) => e.node.id));
    await spool.remove(peeked.map((e) => e.ref));
    expect(await spool.peek(10)).toEqual([]);
    expect((await spool.stats()).entries).toBe(0);
    expect((await spool.stats()).oldestAt).toBeNull();
    await dispose();
  });

  it('keeps an entry appended twice (same node id) once', async () => {
    const { spool, dispose } = await adapter.open(1_000_000);
    const e = entry(webhookId, collectionId, 1);
    await spool.append(e);
    await spool.append(e);
    expect((await spool.peek(10)).length).toBe(1);
    await dispose();
  });

  it('still has its entries and targets after the process that wrote them is gone', async () => {
    const { spool, reopen, dispose } = await adapter.open(1_000_000);
    const e = entry(webhookId, collectionId, 7);
    await spool.append(e);
    await spool.keepTargets(webhookId, [{ tokenHash: tokenHash('A0000000-0000-4000-8000-000000000001'), target: { webhookId, collectionId, templateId: 'forge-push', locale: 'nb', secret: null } }]);
    const again = await reopen();
    expect((await again.peek(10)).map((x) => x.node.id)).toEqual([e.node.id]);
    expect(await again.targets()).toEqual([{ tokenHash: tokenHash('a0000000-0000-4000-8000-000000000001'), target: { webhookId, collectionId, templateId: 'forge-push', locale: 'nb', secret: null } }]);
    if (again !== spool) await again.close();
    await dispose();
  });

  it("keeps a webhook's tokens as a whole: a rotated token replaces the old one, a previous token in its grace is kept beside it, a deleted webhook is forgotten", async () => {
    const { spool, dispose } = await adapter.open(1_000_000);
    const target = { webhookId, collectionId, templateId: null, locale: 'nb' as const, secret: { scheme: 'github' as const, secret: 's3cret' } };
    await spool.keepTargets(webhookId, [{ tokenHash: tokenHash('old'), target }]);
    await spool.keepTargets(webhookId, [{ tokenHash: tokenHash('new'), target }]);
    expect((await spool.targets()).map((t) => t.tokenHash)).toEqual([tokenHash('new')]);
    const previous = { ...target, previousToken: { hash: tokenHash('new'), until: '2030-01-01T00:00:00.000Z' } };
    await spool.keepTargets(webhookId, [{ tokenHash: tokenHash('newer'), target }, { tokenHash: tokenHash('new'), target: previous }]);
    expect((await spool.targets()).sort((x, y) => x.tokenHash.localeCompare(y.tokenHash))).toEqual(
      [{ tokenHash: tokenHash('newer'), target }, { tokenHash: tokenHash('new'), target: previous }].sort((x, y) => x.tokenHash.localeCompare(y.tokenHash)),
    );
    await spool.forgetTarget(webhookId);
    expect(await spool.targets()).toEqual([]);
    await dispose();
  });

  it('refuses an append past its maximum of bytes with SpoolFullError', async () => {
    const { spool, dispose } = await adapter.open(4_000);
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, n) => spool.append(entry(webhookId, collectionId, n))));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(String((r as PromiseRejectedResult).reason)).toMatch(/SpoolFullError/);
    expect(results.filter((r) => r.status === 'fulfilled').length).toBe((await spool.stats()).entries);
    await dispose();
  });
}

describe.each([sqlite])('$name', conformance);
// A NATS server is a service npm does not bring (README, "Optional engines"); .ci/run starts one.
describeWithEngine('nats', describe, 'the NATS JetStream spool', () => conformance(nats));

describe('the SQLite spool on disk', () => {
  it("is readable by the service's user alone", async () => {
    const { spool, dispose } = await sqlite.open(1_000);
    const dir = dirs.at(-1)!;
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'intake-spool.sqlite')).mode & 0o777).toBe(0o600);
    await spool.stats();
    await dispose();
  });
});
