import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { JSON_MAX_DEPTH } from '@inntak/core';
import type { IntakeStore } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { BASE_URL } from '../__tests__/helpers.js';
import { countRows, ctx, node, setupIntakeScene, webhook } from '../__tests__/intake-scene.js';

setupIntakeScene();

function post(token: string, body: string | Buffer, headers: Record<string, string> = {}) {
  let req = request(ctx.app()).post(`/api/webhook/${token}`).set('Content-Type', 'application/json');
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req.send(body);
}

/**
 * Posts bytes as they are (supertest would serialize a Buffer labelled JSON) to the app listening
 * on a port of its own.
 */
async function postBytes(token: string, body: Buffer, headers: Record<string, string>, app = ctx.app()) {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/webhook/${token}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as { error?: string; node_id: string } };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const deepArray = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('deeply nested JSON', () => {
  for (const template of [null, 'forge-push', 'forge-issues', 'forge-pull-request', 'chat-message', 'ci-build']) {
    it(`JSON nested 2,000 and 100,000 deep answers 400 on a ${template ?? 'plain'} webhook and writes nothing`, async () => {
      const hook = await ctx.addWebhook(template);
      const before = await countRows();
      for (const body of [deepArray(2000), deepObject(2000), deepArray(100_000), `{"payload":${deepObject(100_000)}}`]) {
        const res = await post(hook.token, body, { 'X-GitHub-Event': 'push' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ error: `JSON-en er nestet dypere enn ${JSON_MAX_DEPTH} nivåer` });
      }
      const form = await request(ctx.app())
        .post(`/api/webhook/${hook.token}`)
        .type('form')
        .send({ payload: deepArray(2000) });
      expect(form.status).toBe(400);
      expect(await countRows()).toEqual(before);
    });
  }

  it(`JSON nested ${JSON_MAX_DEPTH} deep, the limit, is stored unchanged`, async () => {
    const body = `{"title":"dyp","x":${deepArray(JSON_MAX_DEPTH - 1)}}`;
    const res = await post(webhook.token, body);
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).metadata.payload).toEqual(JSON.parse(body));
  });
});

describe('Content-Encoding', () => {
  const payload = JSON.stringify({ title: 'pakket', content: 'inn' });
  for (const [encoding, pack] of [
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const) {
    it(`a ${encoding} body is inflated and stored`, async () => {
      const res = await postBytes(webhook.token, pack(payload), { 'Content-Encoding': encoding });
      expect(res.status).toBe(200);
      expect(await node(res.body.node_id)).toMatchObject({ title: 'pakket', content: 'inn' });
    });
  }

  it('a body marked gzip that is not gzip answers 400 and writes nothing', async () => {
    const before = await countRows();
    const res = await postBytes(webhook.token, Buffer.from(payload), { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Forespørselen kunne ikke leses: innholdet kunne ikke pakkes ut (Content-Encoding)' });
    expect(await countRows()).toEqual(before);
  });

  it('a truncated gzip body answers 400 and writes nothing', async () => {
    const before = await countRows();
    const res = await postBytes(webhook.token, gzipSync(payload).subarray(0, 12), { 'Content-Encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Forespørselen kunne ikke leses/);
    expect(await countRows()).toEqual(before);
  });

  it('an unsupported Content-Encoding answers 415 and writes nothing', async () => {
    const before = await countRows();
    const res = await postBytes(webhook.token, Buffer.from(payload), { 'Content-Encoding': 'compress' });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: 'Kodingen støttes ikke: Content-Encoding compress' });
    expect(await countRows()).toEqual(before);
  });

  it('a gzip body that inflates past BODY_LIMIT answers 413 and writes nothing', async () => {
    const before = await countRows();
    const bomb = gzipSync(JSON.stringify({ content: ' '.repeat(64 * 1024) }));
    expect(bomb.length).toBeLessThan(1024);
    const res = await postBytes(webhook.token, bomb, { 'Content-Encoding': 'gzip' }, ctx.app({ bodyLimitBytes: 16 * 1024 }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Forespørselen er for stor' });
    expect(await countRows()).toEqual(before);
  });
});

describe('the token is looked up before the body is read', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = ctx.app().listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** Announces a 20 MB body, sends 10 bytes of it, and waits for the answer. */
  async function postUnfinished(token: string): Promise<{ status: number; body: unknown; connection: string | undefined }> {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: `/api/webhook/${token}`,
      headers: { 'Content-Type': 'application/json', 'Content-Length': String(20 * 1024 * 1024), 'Content-Encoding': 'gzip' },
    });
    req.on('error', () => {}); // the server closes the connection after answering
    req.write('[{},{},{},');
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    let text = '';
    for await (const chunk of res) text += String(chunk);
    req.destroy();
    return { status: res.statusCode!, body: JSON.parse(text), connection: res.headers.connection };
  }

  it('an unknown token answers 404 Ugyldig webhook-token without reading the body, and closes the connection', async () => {
    const res = await postUnfinished('00000000-0000-4000-8000-000000000000');
    expect(res).toEqual({ status: 404, body: { error: 'Ugyldig webhook-token' }, connection: 'close' });
  });

  it('a token that is not a UUID answers 404 without reading the body', async () => {
    const res = await postUnfinished('x');
    expect(res).toEqual({ status: 404, body: { error: 'Ugyldig webhook-token' }, connection: 'close' });
  });
});

describe('other methods on a webhook URL', () => {
  it('GET answers 405 with Allow: POST and writes nothing', async () => {
    const before = await countRows();
    const res = await request(ctx.app()).get(`/api/webhook/${webhook.token}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body).toEqual({ error: 'Metoden er ikke tillatt: bruk POST' });
    const put = await request(ctx.app()).put(`/api/webhook/${webhook.token}`).send({});
    expect(put.status).toBe(405);
    expect(await countRows()).toEqual(before);
  });
});

describe('intake racing delete_webhook', () => {
  it('a webhook deleted between the token lookup and the write answers 404 as a deleted webhook, and writes nothing', async () => {
    const doomed = await ctx.addWebhook();
    const real = new PostgresIntakeStore(ctx.database);
    // The lookup succeeds, then the webhook is deleted (as delete_webhook does) before the write.
    const racing: IntakeStore = {
      async findWebhookByToken(token) {
        const target = await real.findWebhookByToken(token);
        await ctx.database.db.deleteFrom('nodes').where('id', '=', doomed.id).execute();
        return target;
      },
      writeContent: (node, edge, log) => real.writeContent(node, edge, log),
    recordFailedDelivery: (delivery) => real.recordFailedDelivery(delivery),
    };
    const res = await request(ctx.app({ intakeStore: racing })).post(`/api/webhook/${doomed.token}`).send({ title: 'for sent' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Ugyldig webhook-token' });
    const stored = await ctx.database.db.selectFrom('nodes').select('id').where(sql`metadata ->> 'webhook_id'`, '=', doomed.id).execute();
    expect(stored).toEqual([]);
  });
});

describe("the webhook's own token in a payload", () => {
  const ping = readFileSync(new URL('../__tests__/fixtures/github-ping.json', import.meta.url), 'utf8');

  it("a GitHub ping carrying the webhook's URL is stored with the token redacted, on every template", async () => {
    for (const template of [null, 'forge-push', 'forge-issues', 'forge-pull-request', 'ci-build']) {
      const hook = await ctx.addWebhook(template);
      const body = JSON.parse(ping) as { hook: { config: { url: string } } };
      body.hook.config.url = `${BASE_URL}/api/webhook/${hook.token}`;
      const res = await post(hook.token, JSON.stringify(body), { 'X-GitHub-Event': 'ping' });
      expect(res.status).toBe(200);
      const stored = await node(res.body.node_id);
      expect(JSON.stringify(stored).toLowerCase()).not.toContain(hook.token);
      expect((stored.metadata.payload as typeof body).hook.config.url).toBe(`${BASE_URL}/api/webhook/:token`);
    }
  });

  it('redacts the token in any case from title, content and keys', async () => {
    const upper = webhook.token.toUpperCase();
    const res = await post(
      upper,
      JSON.stringify({ title: `Hook ${BASE_URL}/api/webhook/${upper}`, content: `token=${webhook.token}`, [webhook.token]: 1 }),
    );
    expect(res.status).toBe(200);
    const stored = await node(res.body.node_id);
    expect(stored.title).toBe(`Hook ${BASE_URL}/api/webhook/:token`);
    expect(stored.content).toBe('token=:token');
    expect(JSON.stringify(stored).toLowerCase()).not.toContain(webhook.token);
  });
});

describe('deeply nested JSON on the JSON routes', () => {
  it(`preview and create_node answer 400 for bodies nested deeper than ${JSON_MAX_DEPTH} levels, and write nothing`, async () => {
    const authorization = await ctx.ownerAuthorization();
    const before = await countRows();
    const preview = await request(ctx.app())
      .post('/admin/webhooks/templates/forge-push/preview')
      .set('Authorization', authorization)
      .set('Content-Type', 'application/json')
      .send(`{"payload":${deepObject(5000)}}`);
    expect(preview.status).toBe(400);
    expect(preview.body).toEqual({ error: `JSON-en er nestet dypere enn ${JSON_MAX_DEPTH} nivåer` });
    const create = await request(ctx.app())
      .post('/intentions/create_node')
      .set('Authorization', authorization)
      .set('Content-Type', 'application/json')
      .send(`{"node_kind":"content","metadata":${deepObject(100_000)}}`);
    expect(create.status).toBe(400);
    expect(await countRows()).toEqual(before);
  });
});
