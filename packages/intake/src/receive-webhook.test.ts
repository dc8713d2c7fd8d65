import { describe, expect, it } from '@jest/globals';
import { AppError, type Logger } from '@inntak/core';
import type { NewEdge, NewNode } from '@inntak/graph';
import { IntakeWriteError, type DeliveryLogEntry, type FailedDelivery, type IntakeStore, type WebhookTarget } from './ports.js';
import { deliveryInHand, receiveWebhook } from './intake-door.js';
import { findWebhook, REDACTED_TOKEN } from './receive-webhook.js';

// The intake use case through its port, with an in-memory store: the rules that do not need a
// database (the Postgres adapter has its own tests against a real server).

const TOKEN = '0193a5b2-7c1d-7e4f-9a10-2b3c4d5e6f70';
const TARGET: WebhookTarget = {
  webhookId: '0193a5b2-0000-7000-8000-000000000001',
  collectionId: '0193a5b2-0000-7000-8000-000000000002',
  templateId: 'forge-push',
  locale: 'nb',
  secret: null,
};

class MemoryStore implements IntakeStore {
  readonly webhooks = new Map<string, WebhookTarget>([[TOKEN, TARGET]]);
  readonly nodes: NewNode[] = [];
  readonly edges: NewEdge[] = [];
  lookups = 0;
  failLookup = false;
  failWrite: 'node' | 'edge' | null = null;
  propagationError: string | null = null;

  async findWebhookByToken(token: string) {
    this.lookups++;
    if (this.failLookup) throw new Error('connection refused');
    return this.webhooks.get(token);
  }

  readonly log: Array<DeliveryLogEntry & { status: number }> = [];

  async writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry) {
    // One transaction: a failure keeps nothing.
    if (this.failWrite) throw new IntakeWriteError(this.failWrite, { cause: new Error('insert failed') });
    this.nodes.push(node);
    this.edges.push(edge);
    this.log.push({ ...log, status: 200 });
    return { propagationError: this.propagationError, duplicateOf: null };
  }

  async recordFailedDelivery(delivery: FailedDelivery) {
    this.log.push(delivery);
  }
}

function recordingLogger(): Logger & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const log = (level: string) => (message: string) => void lines.push({ level, message });
  return { lines, error: log('error'), warn: log('warn'), info: log('info'), debug: log('debug') };
}

const PUSH = { ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'alice' }, commits: [] };

describe('findWebhook', () => {
  it('a token that is not a UUID answers Ugyldig webhook-token without asking the store', async () => {
    const store = new MemoryStore();
    await expect(findWebhook(store, 'not-a-uuid')).rejects.toMatchObject({ code: 'webhook_not_found' });
    expect(store.lookups).toBe(0);
  });

  it('an unknown token answers Ugyldig webhook-token; a known one in upper case finds its webhook', async () => {
    const store = new MemoryStore();
    await expect(findWebhook(store, '0193a5b2-7c1d-7e4f-9a10-ffffffffffff')).rejects.toMatchObject({ code: 'webhook_not_found' });
    expect(await findWebhook(store, TOKEN.toUpperCase())).toEqual(TARGET);
  });

  it('a failing token lookup answers Databasefeil', async () => {
    const store = new MemoryStore();
    store.failLookup = true;
    const err = await findWebhook(store, TOKEN).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'token_lookup_failed' });
  });
});

describe('receiveWebhook', () => {
  it('renders the payload with the webhook’s template and writes one node and its belongs_to edge', async () => {
    const store = new MemoryStore();
    const answer = await receiveWebhook({ store, logger: recordingLogger() }, deliveryInHand({ token: TOKEN, body: JSON.stringify(PUSH), headers: { 'x-github-event': 'push' } }));
    expect(store.nodes).toHaveLength(1);
    expect(store.edges).toHaveLength(1);
    const [node] = store.nodes;
    const [edge] = store.edges;
    expect(answer).toMatchObject({ node_id: node!.id, edge_id: edge!.id, templateId: 'forge-push', repairQueued: false });
    expect(node!.title).toContain('acme/widget');
    expect(node!.metadata).toMatchObject({ webhook_id: TARGET.webhookId, payload: PUSH });
    expect(edge).toMatchObject({ source_id: node!.id, target_id: TARGET.collectionId, edge_type: 'belongs_to', system: true });
  });

  it('access propagation failing still answers, reports the repair and logs the error', async () => {
    const store = new MemoryStore();
    store.propagationError = 'deadlock detected';
    const logger = recordingLogger();
    const answer = await receiveWebhook({ store, logger }, deliveryInHand({ token: TOKEN, body: JSON.stringify(PUSH) }));
    expect(answer.repairQueued).toBe(true);
    expect(store.nodes).toHaveLength(1);
    expect(logger.lines).toContainEqual({ level: 'error', message: expect.stringContaining('repair queued') });
  });

  it('a failed node insert answers Databasefeil ved opprettelse av node, a failed edge insert … av edge', async () => {
    for (const [step, code] of [
      ['node', 'node_insert_failed'],
      ['edge', 'edge_insert_failed'],
    ] as const) {
      const store = new MemoryStore();
      store.failWrite = step;
      await expect(receiveWebhook({ store, logger: recordingLogger() }, deliveryInHand({ token: TOKEN, body: JSON.stringify(PUSH) }))).rejects.toMatchObject({ code });
      expect(store.nodes).toHaveLength(0);
    }
  });

  it('an unknown template_id falls back to generic extraction with a warning', async () => {
    const store = new MemoryStore();
    store.webhooks.set(TOKEN, { ...TARGET, templateId: 'no-such-template' });
    const logger = recordingLogger();
    const answer = await receiveWebhook({ store, logger }, deliveryInHand({ token: TOKEN, body: JSON.stringify({ text: 'hei' }) }));
    expect(answer.templateId).toBeNull();
    expect(store.nodes).toHaveLength(1);
    expect(logger.lines).toContainEqual({ level: 'warn', message: expect.stringContaining('unknown template_id') });
  });

  it('the webhook’s own token and characters jsonb refuses never reach the store', async () => {
    const store = new MemoryStore();
    const payload = { hook: { config: { url: `https://inntak.example/api/webhook/${TOKEN.toUpperCase()}` } }, note: 'a\u0000b' };
    await receiveWebhook({ store, logger: recordingLogger() }, deliveryInHand({ token: TOKEN, body: JSON.stringify(payload) }));
    const stored = JSON.stringify(store.nodes[0]);
    expect(stored.toLowerCase()).not.toContain(TOKEN);
    expect(stored).toContain(REDACTED_TOKEN);
    expect(stored).not.toContain('\\u0000');
  });
});
