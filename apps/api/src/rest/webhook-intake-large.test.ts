import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { INLINE_BODY_BYTES } from './webhook-intake-body.js';
import { BASE_URL, setupTestContext, type TestContext } from '../__tests__/helpers.js';

let ctx: TestContext;
let server: Server;
let base: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  server = ctx.app().listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await ctx.close();
});

async function post(token: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/api/webhook/${token}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });
  const json = (await res.json()) as { node_id: string; edge_id: string; error?: string };
  return { status: res.status, body: json };
}

/** A GitHub push with `count` commits of about 1 KB each. */
function bigPush(count: number, extra: Record<string, unknown> = {}) {
  const commits = Array.from({ length: count }, (_, i) => ({
    id: i.toString(16).padStart(40, '0'),
    message: `Commit ${i}\n\n${'Lorem ipsum dolor sit amet. '.repeat(30)}`,
    author: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
    url: `https://github.com/acme/widget/commit/${i}`,
  }));
  return { ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'alice' }, commits, ...extra };
}

function stored(id: string) {
  return ctx.database.db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

// Whether they stall other requests is measured by `npm run bench:intake-large` (docs/security.md).
describe('large bodies, parsed on a worker thread', () => {
  it('a 2 MB push is rendered by its template and stored unchanged', async () => {
    const hook = await ctx.addWebhook('forge-push');
    const payload = bigPush(2000);
    const text = JSON.stringify(payload);
    expect(text.length).toBeGreaterThan(INLINE_BODY_BYTES);
    const res = await post(hook.token, text, { 'X-GitHub-Event': 'push' });
    expect(res.status).toBe(200);
    const node = await stored(res.body.node_id);
    expect(node.metadata.payload).toEqual(payload);
    expect(node.title).toContain('acme/widget');
    expect(node.metadata).toMatchObject({ source: 'webhook', webhook_id: hook.id });
  });

  it("redacts the webhook's own token and cleans NUL in a large body too", async () => {
    const hook = await ctx.addWebhook();
    const payload = bigPush(1000, { title: 'stor\u0000', hook: { config: { url: `${BASE_URL}/api/webhook/${hook.token}` } } });
    const res = await post(hook.token, JSON.stringify(payload));
    expect(res.status).toBe(200);
    const node = await stored(res.body.node_id);
    expect(node.title).toBe('stor');
    expect((node.metadata.payload as { hook: { config: { url: string } } }).hook.config.url).toBe(`${BASE_URL}/api/webhook/:token`);
    expect(JSON.stringify(node)).not.toContain(hook.token);
  });

  it('refuses a large unparsable or too deep body with 400, as a small one', async () => {
    const hook = await ctx.addWebhook();
    const big = JSON.stringify(bigPush(1000));
    expect((await post(hook.token, big.slice(0, -1))).status).toBe(400);
    const deep = `${big.slice(0, -1)},"deep":${'['.repeat(600)}${']'.repeat(600)}}`;
    const res = await post(hook.token, deep);
    expect(res).toMatchObject({ status: 400, body: { error: 'JSON-en er nestet dypere enn 512 nivåer' } });
  });
});
