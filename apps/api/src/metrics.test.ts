import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { loadConfig } from './config.js';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from './__tests__/helpers.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

const METRICS_TOKEN = 'scraper-secret-0123456789abcdef-0123456789';
let ctx: TestContext;
let webhook: { id: string; token: string; edgeId: string };

beforeAll(async () => {
  ctx = await setupTestContext();
  await createPerson(storesOn(ctx.database.db).graph, { subject: 'admin', admin: true });
  webhook = await ctx.addWebhook();
});
afterAll(() => ctx.close());

async function bearer(subject: string): Promise<string> {
  return `Bearer ${await ctx.tokenFor(subject)}`;
}

interface RequestCount {
  method: string;
  route: string;
  status: string;
  count: number;
}

describe('GET /metrics: who may read it', () => {
  it('answers 401 Mangler Authorization-header without the header', async () => {
    const res = await request(ctx.app()).get('/metrics');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Mangler Authorization-header' });
  });

  it('answers 403 Ingen tilgang to a known caller who is not a system admin', async () => {
    const res = await request(ctx.app()).get('/metrics').set('Authorization', await bearer(OWNER_SUBJECT));
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Ingen tilgang: kun for systemadministratorer' });
  });

  it('answers 200 to a system admin\'s JWT', async () => {
    const res = await request(ctx.app()).get('/metrics').set('Authorization', await bearer('admin'));
    expect(res.status).toBe(200);
  });

  it('answers 200 to the configured METRICS_TOKEN, and treats any other bearer as a JWT', async () => {
    const app = ctx.app({ metricsToken: METRICS_TOKEN });
    expect((await request(app).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`)).status).toBe(200);
    const wrong = await request(app).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Ugyldig token' });
  });

  it('without METRICS_TOKEN configured, no bearer but an admin JWT opens it', async () => {
    const res = await request(ctx.app()).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(401);
  });

  it('METRICS_TOKEN must be long enough to be a secret', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN must be at least 32 characters/);
    expect(loadConfig({ METRICS_TOKEN }).metricsToken).toBe(METRICS_TOKEN);
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });
});

describe('GET /metrics as JSON', () => {
  it('has pg_stats with per-table and per-index statistics, cache hit ratio and the node_access row count', async () => {
    // Backends publish their statistics lazily; make this one publish its reads now.
    await ctx.database.db.connection().execute(async (c) => {
      await sql`select count(*) from nodes`.execute(c);
      await sql`select pg_stat_force_next_flush()`.execute(c);
      await sql`select 1`.execute(c);
    });
    const res = await request(ctx.app()).get('/metrics').set('Authorization', await bearer('admin'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const stats = res.body.pg_stats;
    const tables = (stats.tables as Array<{ table: string }>).map((t) => t.table);
    expect(tables).toEqual(expect.arrayContaining(['nodes', 'edges', 'node_access', 'auth_identities', 'system_admins']));
    expect(stats.tables.find((t: { table: string }) => t.table === 'nodes')).toEqual(
      expect.objectContaining({ live_rows: expect.any(Number), seq_scans: expect.any(Number), heap_blocks_hit: expect.any(Number), size_bytes: expect.any(Number) }),
    );
    const indexes = (stats.indexes as Array<{ index: string }>).map((i) => i.index);
    expect(indexes).toEqual(expect.arrayContaining(['nodes_pkey', 'node_search_document_idx', 'node_access_pkey']));
    expect(stats.cache_hit_ratio.tables).toBeGreaterThan(0);
    expect(stats.cache_hit_ratio.tables).toBeLessThanOrEqual(1);
    const count = await sql<{ n: string }>`select count(*) as n from node_access`.execute(ctx.database.db);
    expect(stats.node_access_rows).toBe(Number(count.rows[0]!.n));
    expect(stats.node_access_rows).toBeGreaterThan(0);
  });

  it('counts requests by method, route pattern and status, never by the raw path with its webhook token', async () => {
    const app = ctx.app();
    await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 't' }).expect(200);
    await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 't' }).expect(200);
    await request(app).post('/api/webhook/00000000-0000-4000-8000-000000000000').send({}).expect(404);
    await request(app).get('/me').expect(401);
    await request(app).get('/no/such/route').expect(404);
    const res = await request(app).get('/metrics').set('Authorization', await bearer('admin'));
    const requests = res.body.requests as RequestCount[];
    expect(requests).toEqual(
      expect.arrayContaining([
        { method: 'POST', route: '/api/webhook/:token', status: '200', count: 2 },
        { method: 'POST', route: '/api/webhook/:token', status: '404', count: 1 },
        { method: 'GET', route: '/me', status: '401', count: 1 },
        { method: 'GET', route: 'unmatched', status: '404', count: 1 },
      ]),
    );
    expect(JSON.stringify(res.body)).not.toContain(webhook.token);
  });

  it('keeps each app\'s counts apart (one registry per app)', async () => {
    const first = ctx.app();
    const second = ctx.app();
    await request(first).get('/health');
    const res = await request(second).get('/metrics').set('Authorization', await bearer('admin'));
    expect((res.body.requests as RequestCount[]).filter((r) => r.route === '/health')).toEqual([]);
  });
});

describe('GET /metrics as Prometheus text', () => {
  it('?format=prometheus gives the same figures as Prometheus text', async () => {
    const app = ctx.app();
    await request(app).post(`/api/webhook/${webhook.token}`).send({}).expect(200);
    const res = await request(app).get('/metrics?format=prometheus').set('Authorization', await bearer('admin'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const count = await sql<{ n: string }>`select count(*) as n from node_access`.execute(ctx.database.db);
    expect(res.text).toContain(`inntak_pg_node_access_rows ${count.rows[0]!.n}`);
    expect(res.text).toContain('inntak_http_requests_total{method="POST",route="/api/webhook/:token",status="200"} 1');
    expect(res.text).toMatch(/inntak_pg_table_rows\{table="nodes",state="live"\} \d+/);
    expect(res.text).toMatch(/inntak_pg_index_scans_total\{table="node_search",index="node_search_document_idx"\} \d+/);
    expect(res.text).toMatch(/inntak_pg_cache_hit_ratio\{source="tables"\} [\d.]+/);
    expect(res.text).not.toContain(webhook.token);
  });

  it('an Accept: text/plain request gets Prometheus text too', async () => {
    const res = await request(ctx.app()).get('/metrics').set('Accept', 'text/plain').set('Authorization', await bearer('admin'));
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE inntak_http_requests_total counter');
  });

  it('a Prometheus scraper\'s Accept header gets Prometheus text', async () => {
    const res = await request(ctx.app({ metricsToken: METRICS_TOKEN }))
      .get('/metrics')
      .set('Accept', 'application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1')
      .set('Authorization', `Bearer ${METRICS_TOKEN}`);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
  });

  it('an unknown format answers 400 Ugyldig forespørsel: format: ...', async () => {
    const res = await request(ctx.app()).get('/metrics?format=xml').set('Authorization', await bearer('admin'));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^Ugyldig forespørsel: format: /);
  });
});

describe('GET /metrics: intake, latency, process and PostgreSQL counters', () => {
  it('counts intake deliveries by template and outcome, duplicates and invalid signatures included', async () => {
    const app = ctx.app();
    const push = await ctx.addWebhook('forge-push');
    const unknown = await ctx.addWebhook('finnes-ikke');
    const signed = await ctx.addWebhook(null);
    await request(app).post('/intentions/set_webhook_secret').set('Authorization', await bearer('admin')).send({ webhook_id: signed.id, scheme: 'gitlab', secret: 'tok' }).expect(200);
    await request(app).post(`/api/webhook/${signed.token}`).set('X-Gitlab-Token', 'tok').set('X-Gitlab-Event-UUID', 'u-1').send({}).expect(200);
    await request(app).post(`/api/webhook/${signed.token}`).set('X-Gitlab-Token', 'tok').set('X-Gitlab-Event-UUID', 'u-1').send({}).expect(200);
    await request(app).post(`/api/webhook/${signed.token}`).set('X-Gitlab-Token', 'wrong').send({}).expect(401);
    await request(app).post(`/api/webhook/${push.token}`).set('X-GitHub-Event', 'push').send({ ref: 'refs/heads/main', commits: [] }).expect(200);
    await request(app).post(`/api/webhook/${webhook.token}`).send({}).expect(200);
    await request(app).post(`/api/webhook/${unknown.token}`).send({}).expect(200);
    await request(app).post(`/api/webhook/${push.token}`).set('Content-Type', 'application/json').send('{').expect(400);
    await request(app).post('/api/webhook/00000000-0000-4000-8000-000000000000').send({}).expect(404);
    const res = await request(app).get('/metrics').set('Authorization', await bearer('admin'));
    expect(res.body.intake).toEqual(
      expect.arrayContaining([
        { template: 'forge-push', outcome: 'stored', count: 1 },
        { template: 'generic', outcome: 'stored', count: 3 },
        { template: 'forge-push', outcome: 'bad_request', count: 1 },
        { template: 'none', outcome: 'not_found', count: 1 },
        { template: 'generic', outcome: 'duplicate', count: 1 },
        { template: 'generic', outcome: 'invalid_signature', count: 1 },
      ]),
    );
    expect(res.body.intake).toHaveLength(6);
  });

  it('Prometheus text has intake counters, latency histograms, process metrics and PostgreSQL counts as counters', async () => {
    const app = ctx.app();
    await request(app).post(`/api/webhook/${webhook.token}`).send({}).expect(200);
    const res = await request(app).get('/metrics?format=prometheus').set('Authorization', await bearer('admin'));
    const text = res.text;
    expect(text).toContain('inntak_intake_requests_total{template="generic",outcome="stored"} 1');
    expect(text).toContain('# TYPE inntak_http_request_duration_seconds histogram');
    expect(text).toMatch(/inntak_http_request_duration_seconds_bucket\{le="0\.2",method="POST",route="\/api\/webhook\/:token"\} [01]/);
    expect(text).toMatch(/inntak_http_request_duration_seconds_bucket\{le="\+Inf",method="POST",route="\/api\/webhook\/:token"\} 1/);
    expect(text).toMatch(/inntak_http_request_duration_seconds_count\{method="POST",route="\/api\/webhook\/:token"\} 1/);
    // prom-client's process metrics keep their standard names, so stock Node.js dashboards work.
    for (const name of ['process_cpu_user_seconds_total', 'process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text).toContain(`# TYPE ${name} `);
      expect(text).not.toContain(`inntak_${name}`);
    }
    for (const name of ['table_scans', 'table_tuples', 'table_blocks', 'index_scans', 'index_tuples', 'index_blocks']) {
      expect(text).toContain(`# TYPE inntak_pg_${name}_total counter`);
    }
    expect(text).toMatch(/inntak_pg_table_tuples_total\{table="nodes",op="insert"\} [1-9]\d*/);
    expect(text).toContain('# TYPE inntak_pg_table_rows gauge');
    expect(text).not.toContain(webhook.token);
  });

  it('PostgreSQL counters show the current totals at each scrape, not a sum over scrapes', async () => {
    const app = ctx.app();
    const inserted = async () => {
      const res = await request(app).get('/metrics?format=prometheus').set('Authorization', await bearer('admin'));
      return Number(/inntak_pg_table_tuples_total\{table="nodes",op="insert"\} (\d+)/.exec(res.text)![1]);
    };
    // PostgreSQL flushes its statistics asynchronously, so the total may grow between two reads
    // (earlier inserts of this file landing late): each scrape must lie between the totals read
    // just before and just after it. A sum over scrapes would put the second near twice the first.
    const total = async () =>
      Number((await sql<{ n: string }>`select n_tup_ins as n from pg_stat_user_tables where relname = 'nodes'`.execute(ctx.database.db)).rows[0]!.n);
    // Earlier inserts of this file may still be on their way into the statistics: wait until two
    // reads agree (a busy machine flushes them late), so that the totals the scrapes are held to
    // do not double on their own (seen: 4 before, 15 after).
    let before = await total();
    for (let tries = 0; tries < 30; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const again = await total();
      if (again === before) break;
      before = again;
    }
    const first = await inserted();
    const between = await total();
    const second = await inserted();
    const after = await total();
    expect(before).toBeGreaterThan(0);
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(between);
    expect(second).toBeGreaterThanOrEqual(between);
    expect(second).toBeLessThanOrEqual(after);
    // A sum over scrapes would put the second at least at before + between: past `after`, as
    // long as the totals did not grow that much on their own meanwhile.
    expect(before + between).toBeGreaterThan(after);
  });
});
