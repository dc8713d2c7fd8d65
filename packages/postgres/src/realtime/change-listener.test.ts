import { once, EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import type { Logger } from '@inntak/core';
import { WEBHOOK_TARGET_CHANNELS, WebhookTargetCache, type KeptTarget, type WebhookTarget } from '@inntak/intake';
import { admin, setupAdminScene, testDb } from '../__tests__/index.js';
import { ChangeListener, LISTENER_APPLICATION_NAME, type ChangeListenerOptions, type ChangeNotice } from './change-listener.js';

const lines: Array<{ level: string; message: string }> = [];
const logger: Logger = {
  error: (message) => lines.push({ level: 'error', message }),
  warn: (message) => lines.push({ level: 'warn', message }),
  info: (message) => lines.push({ level: 'info', message }),
  debug: (message) => lines.push({ level: 'debug', message }),
};

setupAdminScene();
afterEach(async () => {
  await admin.query(`alter database "${testDb.name}" allow_connections true`);
  lines.length = 0;
});

async function listenerConnections(): Promise<number> {
  const res = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1 and application_name = $2', [
    testDb.name,
    LISTENER_APPLICATION_NAME,
  ]);
  return Number(res.rows[0]!.n);
}

/** The most listener connections seen while sampling every 25 ms for `ms`. */
async function mostConnectionsDuring(ms: number): Promise<number> {
  let most = 0;
  for (const end = Date.now() + ms; Date.now() < end; ) {
    most = Math.max(most, await listenerConnections());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return most;
}

/** The database refuses new connections and its listener connection is killed: an outage. */
async function outage(): Promise<void> {
  await admin.query(`alter database "${testDb.name}" allow_connections false`);
  await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = $2', [
    testDb.name,
    LISTENER_APPLICATION_NAME,
  ]);
}

const started: ChangeListener[] = [];
afterEach(() => Promise.all(started.splice(0).map((l) => l.stop())));

function startListener(extra: Partial<ChangeListenerOptions> = {}): { listener: ChangeListener; events: EventEmitter; notices: ChangeNotice[] } {
  const events = new EventEmitter();
  const notices: ChangeNotice[] = [];
  const listener = new ChangeListener({
    ...extra,
    connectionString: testDb.url,
    logger,
    minBackoffMs: 20,
    maxBackoffMs: 300,
    onBurst: async (burst) => {
      notices.push(...burst);
      events.emit('burst');
    },
    onReconnect: () => events.emit('reconnect'),
  });
  started.push(listener);
  return { listener, events, notices };
}

describe('the realtime listener through a database outage', () => {
  it('a 1.5 s outage: one connection at most, backoff that grows, one log line when lost and one when back', async () => {
    const { listener, events, notices } = startListener();
    await listener.start();
    expect(await listenerConnections()).toBe(1);

    const lostAt = Date.now();
    await outage();
    expect(await mostConnectionsDuring(1500)).toBeLessThanOrEqual(1);
    // Growing delays (full jitter up to 20·2^n ms, capped at 300 ms) allow about a dozen tries in
    // 1.5 s; the old loop doubled its retries every failure. Counted per second of the outage as
    // it really lasted: on a busy machine the sampling stretches it.
    expect(listener.reconnectAttempts).toBeGreaterThanOrEqual(1);
    expect(listener.reconnectAttempts).toBeLessThan(10 + 10 * ((Date.now() - lostAt) / 1000));

    const reconnected = once(events, 'reconnect');
    await admin.query(`alter database "${testDb.name}" allow_connections true`);
    await reconnected;
    expect(await mostConnectionsDuring(500)).toBe(1);
    expect(lines).toEqual([
      { level: 'warn', message: 'realtime listener lost its connection; reconnecting' },
      { level: 'info', message: 'realtime listener reconnected' },
    ]);

    // Notifications flow on the new connection.
    const burst = once(events, 'burst');
    const db = new pg.Client({ connectionString: testDb.url });
    await db.connect();
    await db.query(`select pg_notify('inntak_nodes', '{"op":"insert"}')`);
    await db.end();
    await burst;
    expect(notices).toEqual([{ channel: 'inntak_nodes', payload: { op: 'insert' } }]);

    await listener.stop();
    expect(await mostConnectionsDuring(200)).toBe(0);
  });

  it('stopped during an outage, it stops trying and opens no connection when the database is back', async () => {
    const { listener } = startListener();
    await listener.start();
    await outage();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await listener.stop();
    const attempts = listener.reconnectAttempts;
    await admin.query(`alter database "${testDb.name}" allow_connections true`);
    expect(await mostConnectionsDuring(700)).toBe(0);
    expect(listener.reconnectAttempts).toBe(attempts);
    expect(lines.filter((l) => l.message.startsWith('realtime listener'))).toHaveLength(1);
  });

  it('tells its subscriber when it listens and when it lost its connection, so a copy kept by its notices is not trusted in between (issue 40)', async () => {
    const live: boolean[] = [];
    const { listener, events } = startListener({ onLive: (on) => live.push(on) });
    await listener.start();
    expect(live).toEqual([true]);
    const reconnected = once(events, 'reconnect');
    await outage();
    for (let tries = 0; live.length < 2 && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(live).toEqual([true, false]);
    await admin.query(`alter database "${testDb.name}" allow_connections true`);
    await reconnected;
    expect(live).toEqual([true, false, true]);
    await listener.stop();
    expect(live).toEqual([true, false, true, false]);
  });
});

describe('the channels a subscriber names', () => {
  it('hears only those: the intake cache is not sent the access rows', async () => {
    const { listener, events, notices } = startListener({ channels: ['inntak_nodes', 'inntak_webhooks'] });
    await listener.start();
    const burst = once(events, 'burst');
    const db = new pg.Client({ connectionString: testDb.url });
    await db.connect();
    await db.query(`select pg_notify('inntak_access', '{"op":"insert"}'), pg_notify('inntak_nodes', '{"op":"update"}')`);
    await db.end();
    await burst;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(notices).toEqual([{ channel: 'inntak_nodes', payload: { op: 'update' } }]);
  });
});


describe("the intake's webhook cache on the stream (issue 40)", () => {
  it('takes a webhook out at once on its notice while the read of another changed webhook is still under way', async () => {
    // The read of webhook A hangs (a busy pool, a slow database): the notice of B, whose token
    // was rotated meanwhile, must still take B's token out of memory within the stream's delay.
    let release: (kept: KeptTarget[]) => void = () => {};
    const hanging = new Promise<KeptTarget[]>((resolve) => (release = resolve));
    const store = { keepTargets: async () => {}, forgetTarget: async () => {}, targets: async () => [] };
    const cache = new WebhookTargetCache(store, logger, { targetsOf: (ids) => (ids.includes(A) ? hanging : Promise.resolve([])) });
    const listener = new ChangeListener({
      connectionString: testDb.url,
      logger,
      onBurst: (notices) => cache.onBurst(notices),
      onReconnect: () => cache.onReconnect(),
      onLive: (live) => cache.onLive(live),
      channels: WEBHOOK_TARGET_CHANNELS,
    });
    started.push(listener);
    await listener.start();
    const A = '01a20000-0000-7000-8000-0000000000a1';
    const B = '01a20000-0000-7000-8000-0000000000b1';
    const TA = 'a0000000-0000-4000-8000-0000000000a1';
    const TB = 'a0000000-0000-4000-8000-0000000000b1';
    const target = (id: string): WebhookTarget => ({ webhookId: id, collectionId: '01a20000-0000-7000-8000-00000000000c', templateId: null, locale: 'nb', secret: null });
    cache.remember(TA, target(A), cache.mark);
    cache.remember(TB, target(B), cache.mark);
    expect([cache.current(TA), cache.current(TB)]).toEqual([target(A), target(B)]);

    const notifyWebhook = async (id: string) => {
      const db = new pg.Client({ connectionString: testDb.url });
      await db.connect();
      await db.query(`select pg_notify('inntak_webhooks', json_build_object('op', 'update', 'webhook_id', $1::text)::text)`, [id]);
      await db.end();
    };
    const until = async (done: () => boolean) => {
      for (let tries = 0; !done() && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    };
    await notifyWebhook(A);
    await until(() => cache.current(TA) === undefined);
    expect(cache.current(TA)).toBeUndefined();
    await notifyWebhook(B);
    await until(() => cache.current(TB) === undefined);
    try {
      expect(cache.current(TB)).toBeUndefined();
    } finally {
      release([]);
    }
  });
});
