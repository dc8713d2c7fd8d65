import { describe, expect, it } from '@jest/globals';
import type { KeptTarget } from './spool.js';
import { tokenHash } from './spool.js';
import type { ChangeNotice } from '@inntak/access';
import type { WebhookTarget } from './ports.js';
import { WebhookTargetCache, type WebhookTargetSource } from './webhook-target-cache.js';

// The intake spool's copy of the webhooks (issue 37) over an in-memory store and source: what
// it answers while the database is away, after rotations with a grace and change notices.

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const WEBHOOK = '01a20000-0000-7000-8000-00000000000a';
const OLD = 'a0000000-0000-4000-8000-000000000001';
const NEW = 'a0000000-0000-4000-8000-000000000002';
const base: WebhookTarget = { webhookId: WEBHOOK, collectionId: '01a20000-0000-7000-8000-00000000000c', templateId: null, locale: 'nb', secret: null };

function memoryStore() {
  const kept = new Map<string, KeptTarget[]>();
  return {
    kept,
    keepTargets: async (id: string, list: readonly KeptTarget[]) => void kept.set(id, [...list]),
    forgetTarget: async (id: string) => void kept.delete(id),
    targets: async () => [...kept.values()].flat(),
  };
}

function setup(source?: WebhookTargetSource) {
  let now = Date.parse('2026-11-28T10:00:00Z');
  const store = memoryStore();
  const cache = new WebhookTargetCache(store, quiet, source, () => now);
  return { cache, store, advance: (ms: number) => (now += ms) };
}

const previous = (until: string): WebhookTarget => ({ ...base, previousToken: { hash: tokenHash(OLD), until } });

describe('the webhook cache of the intake spool', () => {
  it('knows a previous token beside the current one until its grace ends by the clock', () => {
    const { cache, advance } = setup();
    cache.remember(NEW, base);
    cache.remember(OLD, previous('2026-11-28T11:00:00Z'));
    expect(cache.known(OLD)).toMatchObject({ previousToken: { hash: tokenHash(OLD) } });
    expect(cache.known(NEW)).toEqual(base);
    advance(3600 * 1000);
    expect(cache.known(OLD)).toBeUndefined();
    expect(cache.known(NEW)).toEqual(base);
  });

  it('a new current token replaces the old current one, not a previous one', async () => {
    const { cache, store } = setup();
    cache.remember(OLD, base);
    cache.remember(NEW, base);
    expect(cache.known(OLD)).toBeUndefined();
    const third = 'a0000000-0000-4000-8000-000000000003';
    cache.remember(OLD, previous('2026-11-29T10:00:00Z'));
    cache.remember(third, base);
    expect(cache.known(OLD)).toBeDefined();
    expect(cache.known(NEW)).toBeUndefined();
    await Promise.resolve();
    expect(store.kept.get(WEBHOOK)!.map((k) => k.tokenHash).sort()).toEqual([tokenHash(OLD), tokenHash(third)].sort());
  });

  it('reads a changed webhook again on a notice of its node or of its secret, and forgets it when that read fails or finds nothing', async () => {
    let answer: KeptTarget[] | Error = [];
    const source: WebhookTargetSource = { targetsOf: async () => (answer instanceof Error ? Promise.reject(answer) : answer) };
    const { cache } = setup(source);
    cache.remember(OLD, base);
    const secret = { scheme: 'github' as const, secret: 'ny' };
    answer = [{ tokenHash: tokenHash(OLD), target: { ...base, secret } }];
    await cache.onBurst([{ channel: 'inntak_webhooks', payload: { op: 'update', webhook_id: WEBHOOK } }]);
    await cache.settled();
    expect(cache.known(OLD)?.secret).toEqual(secret);
    // Content nodes on the stream are not webhooks it knows: nothing is read.
    answer = new Error('not asked');
    await cache.onBurst([{ channel: 'inntak_nodes', payload: { op: 'insert', id: '01a20000-0000-7000-8000-0000000000ff' } }]);
    expect(cache.known(OLD)?.secret).toEqual(secret);
    await cache.onBurst([{ channel: 'inntak_nodes', payload: { op: 'update', id: WEBHOOK } }]);
    await cache.settled();
    expect(cache.known(OLD)).toBeUndefined();
    cache.remember(OLD, base);
    answer = [];
    await cache.onBurst([{ channel: 'inntak_nodes', payload: { op: 'delete', id: WEBHOOK } }]);
    await cache.settled();
    expect(cache.size).toBe(0);
  });

  it('after a reconnect reads every known webhook again, and keeps them as they were when that read fails', async () => {
    let answer: KeptTarget[] | Error = new Error('the database is away');
    const source: WebhookTargetSource = { targetsOf: async () => (answer instanceof Error ? Promise.reject(answer) : answer) };
    const { cache } = setup(source);
    cache.remember(OLD, base);
    cache.onReconnect();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.known(OLD)).toEqual(base);
    answer = [{ tokenHash: tokenHash(NEW), target: base }];
    cache.onReconnect();
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.known(OLD)).toBeUndefined();
    expect(cache.known(NEW)).toEqual(base);
  });

  describe('answering from memory (issue 40)', () => {
    const notice = (channel: ChangeNotice['channel'], payload: Record<string, unknown>): ChangeNotice => ({ channel, payload });
    /** A cache whose change stream listens, with NEW looked up and answered by the database. */
    function served(source?: WebhookTargetSource) {
      const scene = setup(source);
      scene.cache.onLive(true);
      scene.cache.remember(NEW, base, scene.cache.mark);
      return scene;
    }

    it('answers a token the database found only while the change stream listens', () => {
      const { cache } = setup();
      cache.remember(NEW, base, cache.mark);
      expect(cache.current(NEW)).toBeUndefined();
      expect(cache.known(NEW)).toEqual(base);
      cache.onLive(true);
      expect(cache.current(NEW)).toBeUndefined();
      cache.remember(NEW, base, cache.mark);
      expect(cache.current(NEW)).toEqual(base);
      cache.onLive(false);
      expect(cache.current(NEW)).toBeUndefined();
      expect(cache.known(NEW)).toEqual(base);
    });

    it("takes a webhook out at once when a notice of its node, secret or grace, or of a deleted edge from it, arrives, before it is read again", async () => {
      for (const changed of [
        notice('inntak_nodes', { op: 'update', id: WEBHOOK }),
        notice('inntak_nodes', { op: 'delete', id: WEBHOOK }),
        notice('inntak_webhooks', { op: 'insert', webhook_id: WEBHOOK }),
        notice('inntak_edges', { op: 'delete', id: 'e', old: { source_id: WEBHOOK, target_id: base.collectionId } }),
        notice('inntak_edges', { overflow: 7 }),
      ]) {
        let reads = 0;
        const { cache } = served({ targetsOf: () => new Promise(() => void reads++) });
        expect(cache.current(NEW)).toEqual(base);
        void cache.onBurst([changed]);
        expect([cache.current(NEW), cache.known(NEW)]).toEqual([undefined, base]);
        // The read begins after onBurst returned (it is not awaited there).
        await new Promise((resolve) => setImmediate(resolve));
        expect(reads).toBe(changed.payload.overflow === undefined ? 1 : 0);
      }
    });

    it("leaves it answered through intake's own notices: new nodes, edges and access rows", async () => {
      const { cache } = served({ targetsOf: async () => [] });
      await cache.onBurst([
        notice('inntak_nodes', { op: 'insert', id: 'n' }),
        notice('inntak_edges', { op: 'insert', id: 'e' }),
        notice('inntak_access', { op: 'insert', subject_id: 's', object_id: 'n' }),
      ]);
      expect(cache.current(NEW)).toEqual(base);
    });

    it('does not answer from memory what the database said while a change that may concern it was heard (its notice found nothing to take out)', async () => {
      const { cache } = setup({ targetsOf: async () => [] });
      cache.onLive(true);
      const mark = cache.mark;
      await cache.onBurst([notice('inntak_nodes', { op: 'update', id: WEBHOOK })]);
      cache.remember(NEW, base, mark);
      expect([cache.current(NEW), cache.known(NEW)]).toEqual([undefined, base]);
      cache.remember(NEW, base, cache.mark);
      expect(cache.current(NEW)).toEqual(base);
    });

    it('asks the database again after a minute whatever was heard, and never answers a previous token past its grace', () => {
      const { cache, advance } = served();
      cache.remember(OLD, previous('2026-11-28T10:00:30Z'), cache.mark);
      expect(cache.current(OLD)).toBeDefined();
      advance(30_000);
      expect(cache.current(OLD)).toBeUndefined();
      advance(29_999);
      expect(cache.current(NEW)).toEqual(base);
      advance(1);
      expect(cache.current(NEW)).toBeUndefined();
    });
  });
});

