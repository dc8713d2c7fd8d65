import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { OPERATOR, createCollection, createPerson } from '@inntak/access';
import { deliveryInHand, receiveWebhook, createWebhook, setWebhookTemplate } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runCli } from './__tests__/run-cli.js';

// `inntak webhook deliveries | set-secret | rerender` run as a user runs them (the build).
const PUSH = JSON.parse(readFileSync(new URL('../../../packages/templates/fixtures/forge-push/github-push-one_commit.json', import.meta.url), 'utf8')) as unknown;
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

let h: OpenTestDatabase;
let collection: string;
beforeAll(async () => {
  h = await openTestDatabase(quiet);
  const owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner })).id;
});
afterAll(() => h.dispose());

function inntak(args: string[], stdin?: string) {
  return runCli(args, { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' }, stdin ?? '');
}

/** A push delivered through the intake's own path (store and all), as the API would. */
async function push(token: string) {
  const store = new PostgresIntakeStore(h);
  return receiveWebhook({ store, logger: quiet }, deliveryInHand({ token, body: JSON.stringify(PUSH), headers: { 'x-github-event': 'push' } }));
}

describe('inntak webhook deliveries / set-secret / rerender', () => {
  it('set-secret reads the secret from stdin and answers with the scheme only', async () => {
    const webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: collection });
    const { code, json } = await inntak(['webhook', 'set-secret', '--webhook', webhook.id, '--scheme', 'github', '--secret-stdin'], 'from-stdin-secret\n');
    expect(code).toBe(0);
    expect(json).toEqual({ webhook_id: webhook.id, scheme: 'github' });
    const row = await h.db.selectFrom('webhook_secrets').select(['scheme', 'secret']).where('webhook_id', '=', webhook.id).executeTakeFirst();
    expect(row).toEqual({ scheme: 'github', secret: 'from-stdin-secret' });
    const listed = await inntak(['webhook', 'list']);
    expect(JSON.stringify(listed.json)).not.toContain('from-stdin-secret');
    expect(await inntak(['webhook', 'set-secret', '--webhook', webhook.id, '--scheme', 'svn'])).toMatchObject({ code: 2 });
    expect(await inntak(['webhook', 'set-secret', '--webhook', webhook.id, '--scheme', 'gitlab'])).toMatchObject({ code: 2, json: { error: '--secret-stdin eller --secret mangler' } });
  });

  it('deliveries lists the log newest first and filters by status', async () => {
    const webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: collection });
    const stored = await push(webhook.token);
    await new PostgresIntakeStore(h).recordFailedDelivery({
      id: '01a20000-0000-7000-8000-000000000001',
      webhookId: webhook.id,
      receivedAt: new Date(),
      status: 401,
      error: 'Ugyldig signatur',
      deliveryId: null,
      event: 'push',
      bytes: 10,
      durationMs: 1,
    });
    const all = await inntak(['webhook', 'deliveries', '--webhook', webhook.id]);
    expect(all.code).toBe(0);
    expect((all.json.deliveries as Array<{ status: number; node_id?: string }>).map((d) => [d.status, d.node_id])).toEqual([
      [200, stored.node_id],
      [401, undefined],
    ]);
    const failed = await inntak(['webhook', 'deliveries', '--webhook', webhook.id, '--status', '401']);
    expect(failed.json.deliveries).toEqual([expect.objectContaining({ status: 401, error: 'Ugyldig signatur' })]);
    expect(await inntak(['webhook', 'deliveries', '--webhook', webhook.id, '--status', 'bad'])).toMatchObject({ code: 2 });
    expect(await inntak(['webhook', 'deliveries', '--webhook', collection])).toMatchObject({ code: 1 });
  });

  it('rerender renders every delivery since a date with the current template, in batches, with progress on stderr', async () => {
    const webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: collection });
    const old = await push(webhook.token);
    await h.db.updateTable('nodes').set({ created_at: new Date('2020-01-01') }).where('id', '=', old.node_id).execute();
    const recent = [];
    for (let i = 0; i < 5; i++) recent.push((await push(webhook.token)).node_id);
    await setWebhookTemplate(storesOn(h.db).webhookAdmin, OPERATOR, { webhook_id: webhook.id, template_id: 'forge-push' });

    const { code, json, stderr } = await inntak(['webhook', 'rerender', '--webhook', webhook.id, '--since', '2025-01-01', '--batch', '2']);
    expect(code).toBe(0);
    expect(json).toEqual({ webhook_id: webhook.id, template_id: 'forge-push', rerendered: 5, last_node_id: recent.at(-1) });
    expect(stderr.trim().split('\n').map((line) => line.replace(/ \(last node .*\)$/, ''))).toEqual(['rerendered 2/5', 'rerendered 4/5', 'rerendered 5/5']);
    const rows = await h.db.selectFrom('nodes').select(['id', 'metadata']).where('created_by', '=', webhook.id).execute();
    const templates = Object.fromEntries(rows.map((r) => [r.id, r.metadata.template ?? null]));
    expect(recent.every((id) => templates[id] === 'forge-push')).toBe(true);
    expect(templates[old.node_id]).toBeNull();

    // --after goes on from where a run stopped: nothing is after the last node.
    const resumed = await inntak(['webhook', 'rerender', '--webhook', webhook.id, '--after', recent.at(-1)!]);
    expect(resumed.json).toMatchObject({ rerendered: 0, last_node_id: null });
    expect(await inntak(['webhook', 'rerender', '--webhook', webhook.id, '--since', 'last tuesday'])).toMatchObject({ code: 2 });
  });
});
