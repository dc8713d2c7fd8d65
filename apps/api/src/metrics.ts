import { timingSafeEqual } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { z } from 'zod';
import { requireSystemAdmin } from '@inntak/access';
import type { DatabaseStats } from '@inntak/core';
import type { SpoolSnapshot } from '@inntak/intake';
import { callerOf } from './auth.js';
import type { ReplicaStatus } from './read-routing.js';
import { routeOf } from './request-logging.js';
import { parseInput, type RouteRegistry } from './route-registry.js';
import { intakeOutcome, type IntakeOutcome } from './rest/webhook-intake.js';

/**
 * GET /metrics (docs/metrics.md). It exposes internals (table sizes, traffic by route), so it is
 * for system administrators (admin JWT) and, when METRICS_TOKEN is set, for a scraper holding
 * that token as its bearer token.
 */

/** One registry per app, so several apps in one process (tests) keep their own counts. */
export interface Metrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
  intake: Counter<'template' | 'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'inntak_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'inntak_http_request_duration_seconds',
    help: 'Time from a request\'s arrival to its answer being sent, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    // Intake answers in a few ms; the slow-request threshold (0.2 s) is a bucket edge.
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const intake = new Counter({
    name: 'inntak_intake_requests_total',
    help: 'Webhook deliveries by the webhook\'s template (generic, or none when no webhook matched) and outcome',
    labelNames: ['template', 'outcome'] as const,
    registers: [registry],
  });
  return { registry, requests, duration, intake };
}

/**
 * Counts and times every answered request by its route pattern, never the raw path: webhook
 * tokens are secrets.
 */
export function installRequestCounting(app: Express, metrics: Metrics): void {
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = routeOf(req);
      metrics.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.duration.observe({ method: req.method, route }, Number(process.hrtime.bigint() - started) / 1e9);
      const intake = intakeOutcome(res);
      if (intake) metrics.intake.inc({ template: intake.template ?? 'none', outcome: outcomeOf(res.statusCode, intake) });
    });
    next();
  });
}

/** The intake's outcomes, a small fixed set (docs/metrics.md). */
function outcomeOf(status: number, intake: IntakeOutcome): string {
  if (status === 200) return intake.duplicate ? 'duplicate' : intake.repairQueued ? 'stored_repair_queued' : 'stored';
  if (status === 401) return 'invalid_signature';
  if (status === 404) return 'not_found';
  if (status === 413) return 'too_large';
  if (status === 415) return 'unsupported_encoding';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'error';
}

/**
 * prom-client's process metrics (CPU, memory, event-loop lag, GC, handles) describe the
 * process, not an app: one registry for them, created on first use and shown by every app.
 * They keep prom-client's standard unprefixed names (process_cpu_user_seconds_total,
 * nodejs_eventloop_lag_seconds) so stock Node.js dashboards work; Inntak's own carry `inntak_`.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const PROMETHEUS_TYPES = ['text/plain', 'text/plain;version=0.0.4', 'application/openmetrics-text'];

export const metricsParams = z.strictObject({
  format: z.enum(['json', 'prometheus']).optional(),
});

export interface MetricsDeps {
  metrics: Metrics;
  databaseStats: () => Promise<DatabaseStats>;
  /** A bearer token that may read /metrics without a JWT; absent: admins only. */
  metricsToken: string | undefined;
  /** The read replicas and whether each is in rotation (READ_DATABASE_URL); absent: none. */
  replicaStatus?: () => ReplicaStatus[];
  /** The intake spool's state (issue 37), when intake has one. */
  spool?: () => Promise<SpoolSnapshot>;
  /** Token lookups by what answered, when intake has its webhook cache (issue 40). */
  tokenLookups?: () => { memory: number; database: number };
}

export function installMetrics(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: MetricsDeps): void {
  const gauges = pgMetrics(deps.metrics.registry);
  const spoolGauges = spoolMetrics(deps.metrics.registry);
  const lookups = new Gauge({
    name: 'inntak_intake_token_lookups_total',
    help: 'Webhook token lookups since start, by what answered: memory (kept current by the change stream) or database',
    labelNames: ['answered_by'],
    registers: [deps.metrics.registry],
  });
  const perProcess = processMetrics();
  const inRotation = new Gauge({ name: 'inntak_read_replica_in_rotation', help: 'Whether the read replica takes reads (1) or is out of rotation (0)', labelNames: ['replica'], registers: [deps.metrics.registry] });
  const allowed: RequestHandler = async (req, res, next) => {
    if (deps.metricsToken && bearerIs(req.headers.authorization, deps.metricsToken)) return next();
    await new Promise<void>((resolve, reject) => {
      Promise.resolve(auth(req, res, (err?: unknown) => (err ? reject(err) : resolve()))).catch(reject);
    });
    requireSystemAdmin(callerOf(res));
    next();
  };
  registry.describe({
    method: 'get',
    path: '/metrics',
    summary: 'Metrics: pg_stats, request and intake counters (JSON), or those with latency histograms and process metrics (Prometheus text)',
    description: 'For system administrators (JWT) or a scraper holding METRICS_TOKEN. `format=prometheus` or a text/plain Accept header gives Prometheus text.',
    tags: ['metrics'],
    auth: 'jwt',
    query: metricsParams,
    response: {
      status: 200,
      schema: z.object({
        pg_stats: z.record(z.string(), z.unknown()),
        requests: z.array(z.record(z.string(), z.unknown())),
        intake: z.array(z.record(z.string(), z.unknown())),
        read_replicas: z.array(z.object({ name: z.string(), in_rotation: z.boolean(), reason: z.string().optional() })).optional(),
        spool: z.object({ entries: z.number(), bytes: z.number(), oldest_age_seconds: z.number(), replays_done: z.number(), degraded: z.boolean() }).optional(),
        token_lookups: z.object({ memory: z.number(), database: z.number() }).optional(),
      }),
      alternatives: { 'text/plain': z.string().describe('Prometheus text format (format=prometheus, or asked for by Accept)') },
    },
    errors: [400, 401, 403],
  });
  app.get('/metrics', allowed, async (req, res) => {
    const { format } = parseInput(metricsParams, req.query, 'query');
    // A Prometheus scraper asks for openmetrics or versioned text/plain and gets the text format.
    const prometheus = format ? format === 'prometheus' : req.accepts(['application/json', ...PROMETHEUS_TYPES]) !== 'application/json';
    // The spool's figures matter most while the database is away: its statistics are then empty.
    const stats = await deps.databaseStats().catch(() => ({}) as DatabaseStats);
    const replicas = deps.replicaStatus?.();
    const spool = deps.spool ? await deps.spool() : undefined;
    const tokenLookups = deps.tokenLookups?.();
    if (prometheus) {
      if (tokenLookups) for (const [by, n] of Object.entries(tokenLookups)) lookups.set({ answered_by: by }, n);
      gauges.set(stats);
      inRotation.reset();
      for (const r of replicas ?? []) inRotation.set({ replica: r.name }, r.in_rotation ? 1 : 0);
      if (spool) spoolGauges.set(spool);
      const text = (await deps.metrics.registry.metrics()) + (await perProcess.metrics());
      res.status(200).type(deps.metrics.registry.contentType).send(text);
      return;
    }
    const counts = await deps.metrics.requests.get();
    const intake = await deps.metrics.intake.get();
    res.status(200).json({
      pg_stats: stats,
      requests: counts.values.map((v) => ({ ...v.labels, count: v.value })),
      intake: intake.values.map((v) => ({ ...v.labels, count: v.value })),
      ...(replicas ? { read_replicas: replicas } : {}),
      ...(spool ? { spool: { entries: spool.entries, bytes: spool.bytes, oldest_age_seconds: spool.oldestAgeSeconds, replays_done: spool.replaysDone, degraded: spool.degraded } } : {}),
      ...(tokenLookups ? { token_lookups: tokenLookups } : {}),
    });
  });
}

/** The intake spool (docs/deliveries.md#outages): what waits, and what was replayed since start. */
function spoolMetrics(registry: Registry) {
  const gauge = (name: string, help: string) => new Gauge({ name: `inntak_intake_spool_${name}`, help, registers: [registry] });
  const entries = gauge('entries', 'Deliveries waiting in the intake spool');
  const bytes = gauge('bytes', 'Bytes the intake spool holds');
  const oldest = gauge('oldest_age_seconds', 'Age of the oldest delivery waiting in the intake spool');
  const replays = gauge('replays_total', 'Spooled deliveries written to the database since start');
  return {
    set(s: SpoolSnapshot): void {
      entries.set(s.entries);
      bytes.set(s.bytes);
      oldest.set(s.oldestAgeSeconds);
      replays.set(s.replaysDone);
    },
  };
}

function bearerIs(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * pg_stats in Prometheus terms, set from a fresh read at each scrape: PostgreSQL's cumulative
 * counts (scans, tuples, blocks) as counters, so rate() works on them; sizes, row estimates and
 * ratios as gauges.
 */
function pgMetrics(registry: Registry) {
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[]) =>
    new Gauge<L>({ name: `inntak_pg_${name}`, help, labelNames, registers: [registry] });
  // prom-client counters only go up; PostgreSQL's are read whole, so each scrape resets the
  // series and adds the current total (set() for a counter).
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => {
    const c = new Counter<L>({ name: `inntak_pg_${name}_total`, help, labelNames, registers: [registry] });
    return { metric: c, set: (labels: Record<L, string>, value: number) => c.inc(labels, value) };
  };
  const tableRows = gauge('table_rows', 'Estimated rows per table, live or dead', ['table', 'state']);
  const tableScans = counter('table_scans', 'Scans started on the table, sequential or through an index', ['table', 'kind']);
  const tableTuples = counter('table_tuples', 'Rows read by sequential scans, fetched by index scans, inserted, updated, deleted', ['table', 'op']);
  const tableBlocks = counter('table_blocks', 'Blocks of the table (heap) or its indexes found in shared buffers (hit) or read', ['table', 'source', 'result']);
  const tableSize = gauge('table_size_bytes', 'Size of the table with its indexes and TOAST', ['table']);
  const indexScans = counter('index_scans', 'Scans started on the index', ['table', 'index']);
  const indexTuples = counter('index_tuples', 'Index entries read, and rows fetched through the index', ['table', 'index', 'op']);
  const indexBlocks = counter('index_blocks', 'Index blocks found in shared buffers (hit) or read', ['table', 'index', 'result']);
  const indexSize = gauge('index_size_bytes', 'Size of the index', ['table', 'index']);
  const hitRatio = gauge('cache_hit_ratio', 'Share of block reads served from shared buffers', ['source']);
  const accessRows = gauge('node_access_rows', 'Rows in the access matrix (exact count, taken at most a minute ago)', []);
  const all = [tableRows, tableScans.metric, tableTuples.metric, tableBlocks.metric, tableSize, indexScans.metric, indexTuples.metric, indexBlocks.metric, indexSize, hitRatio, accessRows];
  return {
    set(stats: DatabaseStats): void {
      // A dropped table or index must not linger from an earlier scrape.
      for (const g of all) g.reset();
      for (const t of stats.tables) {
        const table = t.table;
        tableRows.set({ table, state: 'live' }, t.live_rows);
        tableRows.set({ table, state: 'dead' }, t.dead_rows);
        tableScans.set({ table, kind: 'seq' }, t.seq_scans);
        tableScans.set({ table, kind: 'index' }, t.index_scans);
        tableTuples.set({ table, op: 'seq_read' }, t.seq_rows_read);
        tableTuples.set({ table, op: 'index_fetch' }, t.index_rows_fetched);
        tableTuples.set({ table, op: 'insert' }, t.rows_inserted);
        tableTuples.set({ table, op: 'update' }, t.rows_updated);
        tableTuples.set({ table, op: 'delete' }, t.rows_deleted);
        tableBlocks.set({ table, source: 'heap', result: 'hit' }, t.heap_blocks_hit);
        tableBlocks.set({ table, source: 'heap', result: 'read' }, t.heap_blocks_read);
        tableBlocks.set({ table, source: 'index', result: 'hit' }, t.index_blocks_hit);
        tableBlocks.set({ table, source: 'index', result: 'read' }, t.index_blocks_read);
        tableSize.set({ table }, t.size_bytes);
      }
      for (const i of stats.indexes) {
        const labels = { table: i.table, index: i.index };
        indexScans.set(labels, i.scans);
        indexTuples.set({ ...labels, op: 'read' }, i.rows_read);
        indexTuples.set({ ...labels, op: 'fetch' }, i.rows_fetched);
        indexBlocks.set({ ...labels, result: 'hit' }, i.blocks_hit);
        indexBlocks.set({ ...labels, result: 'read' }, i.blocks_read);
        indexSize.set(labels, i.size_bytes);
      }
      if (stats.cache_hit_ratio.tables !== null) hitRatio.set({ source: 'tables' }, stats.cache_hit_ratio.tables);
      if (stats.cache_hit_ratio.indexes !== null) hitRatio.set({ source: 'indexes' }, stats.cache_hit_ratio.indexes);
      accessRows.set(stats.node_access_rows);
    },
  };
}
