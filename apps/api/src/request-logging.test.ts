import { gzipSync } from 'node:zlib';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { IntakeWriteError, type IntakeStore } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

/**
 * The real store, slowed down or with a step failing: the only way to reach these paths. (A
 * failing propagation is real instead: see failPropagationFor.)
 */
function alteredStore(change: { slowMs?: number; fail?: 'lookup' | IntakeWriteError['step'] }): IntakeStore {
  const real = new PostgresIntakeStore(ctx.database);
  const injected = new Error(`injected failure in ${change.fail}`);
  return {
    async findWebhookByToken(token) {
      if (change.slowMs) await new Promise((resolve) => setTimeout(resolve, change.slowMs));
      if (change.fail === 'lookup') throw injected;
      return real.findWebhookByToken(token);
    },
    writeContent(node, edge, log) {
      if (change.fail === 'node' || change.fail === 'edge') return Promise.reject(new IntakeWriteError(change.fail, { cause: injected }));
      return real.writeContent(node, edge, log);
    },
    recordFailedDelivery: (delivery) => real.recordFailedDelivery(delivery),
  };
}

/** A real failure of the access propagation, for content titled `title`: a trigger that raises. */
async function failPropagationFor(title: string): Promise<void> {
  await sql.raw(`create function fail_propagation() returns trigger language plpgsql as $$
    begin if (select n.title from nodes n where n.id = new.object_id) = '${title}' then raise exception 'refused for the test'; end if;
    return new; end $$`).execute(ctx.database.db);
  await sql.raw('create trigger fail_propagation before insert on node_access for each row execute function fail_propagation()').execute(ctx.database.db);
}

/** Posts bytes as they are, to the app on a port of its own (supertest would re-encode them). */
async function postBytes(app: Express, path: string, body: Buffer, headers: Record<string, string>): Promise<number> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method: 'POST', headers, body });
    await res.arrayBuffer();
    return res.status;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** Access lines: `request` at info, or `slow request` at warn when over 200 ms (a loaded machine). */
const isAccessLine = (e: { message: string }) => e.message === 'request' || e.message === 'slow request';

describe('access log', () => {
  it('logs one line per request at info with method, route, status and duration, 4xx and 5xx included', async () => {
    const webhook = await ctx.addWebhook();
    await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({}).expect(200);
    await request(ctx.app()).get('/me').expect(401);
    await request(ctx.app({ intakeStore: alteredStore({ fail: 'lookup' }) })).post(`/api/webhook/${webhook.token}`).send({}).expect(500);
    const lines = ctx.logs.filter(isAccessLine);
    expect(lines).toEqual([
      expect.objectContaining({ method: 'POST', route: '/api/webhook/:token', status: 200, duration_ms: expect.any(Number) }),
      expect.objectContaining({ method: 'GET', route: '/me', status: 401 }),
      expect.objectContaining({ method: 'POST', route: '/api/webhook/:token', status: 500 }),
    ]);
    for (const line of lines) {
      expect(line.level).toBe(line.message === 'request' ? 'info' : 'warn');
      expect(line.level === 'info' || (line.duration_ms as number) > 200).toBe(true);
    }
  });

  it('logs a request over 200 ms at warning with tag slow_request and its duration, by its route', async () => {
    const webhook = await ctx.addWebhook();
    const res = await request(ctx.app({ intakeStore: alteredStore({ slowMs: 250 }) })).post(`/api/webhook/${webhook.token}`).send({});
    expect(res.status).toBe(200);
    const entry = ctx.logs.find((e) => e.tag === 'slow_request');
    expect(entry).toMatchObject({ level: 'warn', method: 'POST', route: '/api/webhook/:token', status: 200 });
    expect(entry!.duration_ms).toBeGreaterThanOrEqual(200);
  });

  // Under its threshold, not "fast" by the clock (a busy machine can take 200 ms for anything):
  // the same 250 ms intake as above, with SLOW_REQUEST_MS far above it.
  it('does not log a request under its threshold as slow', async () => {
    const webhook = await ctx.addWebhook();
    const before = ctx.logs.filter((e) => e.tag === 'slow_request').length;
    const res = await request(ctx.app({ intakeStore: alteredStore({ slowMs: 250 }), slowRequestMs: 10_000 })).post(`/api/webhook/${webhook.token}`).send({});
    expect(res.status).toBe(200);
    expect(ctx.logs.filter((e) => e.tag === 'slow_request')).toHaveLength(before);
  });

  it('names a request that matched no route unmatched, not by its path', async () => {
    await request(ctx.app()).get('/api/webhooks/hemmelig-sti').expect(404);
    expect(ctx.logs.filter(isAccessLine).at(-1)).toMatchObject({ route: 'unmatched', status: 404 });
    expect(JSON.stringify(ctx.logs)).not.toContain('hemmelig-sti');
  });
});

describe('request id', () => {
  it('answers a new X-Request-Id and carries it on every log line of the request', async () => {
    const webhook = await ctx.addWebhook('finnes-ikke');
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 't' }).expect(200);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const lines = ctx.logs.filter((e) => e.request_id === id);
    // the unknown template's warning and the access line
    expect(lines.map((e) => isAccessLine(e) || e.message)).toEqual(['unknown template_id on webhook; using generic extraction', true]);
  });

  it("keeps the caller's X-Request-Id, also on a 500's error line", async () => {
    const webhook = await ctx.addWebhook();
    const res = await request(ctx.app({ intakeStore: alteredStore({ fail: 'node' }) }))
      .post(`/api/webhook/${webhook.token}`)
      .set('X-Request-Id', 'lb-4711.abc')
      .send({});
    expect(res.status).toBe(500);
    expect(res.headers['x-request-id']).toBe('lb-4711.abc');
    expect(ctx.logs.filter((e) => e.request_id === 'lb-4711.abc').map((e) => isAccessLine(e) || e.level)).toEqual(['error', true]);
  });

  it('replaces an X-Request-Id that could forge log content', async () => {
    const res = await request(ctx.app()).get('/health').set('X-Request-Id', 'a b"}{"level":"error');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('tokens never reach the logs', () => {
  it('on every error path, and on a mixed-case path', async () => {
    const webhook = await ctx.addWebhook();
    const token = webhook.token;
    const upper = token.toUpperCase();
    const app = ctx.app();
    const json = { 'Content-Type': 'application/json' };
    const answers: number[] = [];
    const send = async (r: request.Test) => answers.push((await r).status);
    await send(request(app).post(`/api/webhook/${token}`).set(json).send('{"title":'));
    await send(request(app).post(`/api/webhook/${token}`).set(json).send('['.repeat(1000)));
    await send(request(ctx.app({ bodyLimitBytes: 10 })).post(`/api/webhook/${token}`).send({ content: 'for stor' }));
    answers.push(await postBytes(app, `/api/webhook/${token}`, Buffer.from('{}'), { ...json, 'Content-Encoding': 'gzip' }));
    answers.push(await postBytes(app, `/api/webhook/${token}`, Buffer.from('{}'), { ...json, 'Content-Encoding': 'compress' }));
    answers.push(await postBytes(app, `/api/webhook/${token}`, gzipSync('{}'), { ...json, 'Content-Encoding': 'gzip' }));
    await send(request(app).get(`/api/webhook/${token}`));
    await send(request(app).post(`/api/webhook/${token}/extra`).send({}));
    for (const fail of ['lookup', 'node', 'edge'] as const) {
      await send(request(ctx.app({ intakeStore: alteredStore({ fail }) })).post(`/api/webhook/${token}`).send({}));
      await send(request(ctx.app({ intakeStore: alteredStore({ fail }) })).post(`/API/Webhook/${upper}`).send({}));
    }
    await failPropagationFor('reparer meg');
    await send(request(app).post(`/api/webhook/${token}`).send({ title: 'reparer meg' }));
    await send(request(app).post(`/API/Webhook/${upper}`).send({ title: 'reparer meg' }));
    await send(request(ctx.app({ intakeStore: alteredStore({ slowMs: 250 }) })).post(`/API/Webhook/${upper}`).send({ title: token }));
    expect(answers).toEqual([400, 400, 413, 400, 415, 200, 405, 404, 500, 500, 500, 500, 500, 500, 200, 200, 200]);
    expect(ctx.logs.some((e) => e.tag === 'slow_request' && e.route === '/api/webhook/:token')).toBe(true);
    expect(ctx.logs.some((e) => e.level === 'error' && e.route === '/api/webhook/:token')).toBe(true);
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'error', message: 'access propagation failed; repair queued' }));
    expect(JSON.stringify(ctx.logs).toLowerCase()).not.toContain(token);
  });
});
