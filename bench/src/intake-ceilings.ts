import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import { INTAKE_STATEMENTS } from '@inntak/postgres/intake';
import { minimalWrite, minimalWriteScript, type IntakeScene, type MinimalNode } from './intake-scene.js';

/**
 * bench:intake's ceilings (docs/performance.md): what PostgreSQL's own C client, pgbench, does
 * with as many clients as the HTTP run had connections.
 * - `intake`: the intake's exact SQL (its write and its notices, prepared), bound to the same
 *   rendered node; only the ids are made in SQL (time-ordered like UUIDv7) where the API makes
 *   them in Node. It grows with whatever the intake's SQL asks of the database. The token lookup
 *   is not in it: a running API answers a known token from memory (issue 40).
 * - `minimal`: node, edge and access rows into trigger-free tables, one transaction (issue 40):
 *   a fixed amount of work, so a ratio to it shows the intake's own growth.
 * Without /usr/bin/pgbench the same statements run through Node's `pg` in this process instead:
 * a lower ceiling, since it shares this process's CPU.
 */
type CeilingKind = 'intake' | 'minimal';

export interface Figures {
  count: number;
  errors: number;
  /** Sorted, in ms. */
  latencies: number[];
  seconds: number;
  /** CPU ms of the database sessions per transaction, where /proc showed them. */
  dbCpu?: number;
  /** Percentiles in ms, where the tool gave them instead of every latency (wrk). */
  percentiles?: Record<50 | 99, number>;
}


const PGBENCH = '/usr/bin/pgbench';
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** CPU time (user + system) of each of these processes so far, in ms, if /proc shows it. */
export async function cpuMs(pids: number[]): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
  }
  return times;
}

/** CPU ms used between two readings by the processes seen in both; undefined if none was. */
export function cpuUsed(before: Map<number, number>, after: Map<number, number>): number | undefined {
  let sum: number | undefined;
  for (const [pid, ms] of after) if (before.has(pid)) sum = (sum ?? 0) + ms - before.get(pid)!;
  return sum;
}

/** What an accepted GitHub delivery keeps of its headers (the signature masked). */
const BENCH_HEADERS = {
  host: 'localhost:3000',
  'user-agent': 'GitHub-Hookshot/2a3bd5f',
  'content-type': 'application/json',
  'content-length': '1870',
  accept: '*/*',
  'x-github-event': 'push',
  'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  'x-github-hook-id': '292430182',
  'x-hub-signature-256': '••••••',
};

export class Ceilings {
  private readonly scripts = new Map<CeilingKind, string>();
  private pool?: pg.Pool;
  /** Whether this database has this build's intake SQL; an older build's has other functions and tables. */
  private ownSql = false;

  private constructor(
    private readonly url: string,
    private readonly scene: IntakeScene,
    private readonly node: MinimalNode,
    private readonly bodyBytes: number,
    private readonly workDir: string,
    readonly viaPgbench: boolean,
  ) {}

  static async create(url: string, scene: IntakeScene, node: MinimalNode, bodyBytes: number): Promise<Ceilings> {
    const viaPgbench = spawnSync(PGBENCH, ['--version']).status === 0;
    const ceilings = new Ceilings(url, scene, node, bodyBytes, await mkdtemp(path.join(os.tmpdir(), 'inntak-bench-intake-')), viaPgbench);
    // This build's write (migrations 036/037: the delivery's headers; 035: previous tokens) only
    // runs in a database migrated as far; an older build's database gets the minimal ceiling only.
    const found = await scene.handle.pool.query(
      "select 1 from pg_proc where proname = 'inntak_intake_write_quiet' and pronargs = 23 and to_regclass('webhook_previous_tokens') is not null",
    );
    ceilings.ownSql = found.rowCount === 1;
    if (viaPgbench) for (const kind of ceilings.kinds) ceilings.scripts.set(kind, await ceilings.writeScript(kind));
    return ceilings;
  }

  get label(): string {
    return this.viaPgbench ? 'pgbench' : 'Node pg (no pgbench)';
  }

  /** The ceilings this database can run. */
  get kinds(): CeilingKind[] {
    return this.ownSql ? ['intake', 'minimal'] : ['minimal'];
  }

  /** Undefined for the intake's SQL in an older build's database. */
  async run(kind: CeilingKind, connections: number, seconds: number): Promise<Figures | undefined> {
    if (!this.kinds.includes(kind)) return undefined;
    return this.viaPgbench ? this.pgbench(kind, connections, seconds) : this.nodePg(kind, connections, seconds);
  }

  async close(): Promise<void> {
    await this.pool?.end();
    await rm(this.workDir, { recursive: true, force: true });
  }

  private async writeScript(kind: CeilingKind): Promise<string> {
    // Ids time-ordered like UUIDv7; the minimal write's from its transaction's start, so the
    // node's id is the same in each of its statements.
    const clock = kind === 'minimal' ? 'transaction_timestamp()' : 'statement_timestamp()';
    const id = (v: string) => `(lpad(to_hex((extract(epoch from ${clock}) * 1000)::bigint), 12, '0') || lpad(to_hex(:${v}::bigint), 20, '0'))::uuid`;
    const vars = ['n', 'e', 'l', 'd'].map((v) => `\\set ${v} random(1, 9223372036854775806)`);
    let sql: string[];
    if (kind === 'minimal') {
      sql = minimalWriteScript(id);
    } else {
      // The ids once per transaction (\gset), since the notices after the write name them too.
      const made = `select ${id('n')} as n_id, ${id('e')} as e_id, ${id('l')} as l_id, ${id('d')}::text as d_id \\gset`;
      const write = INTAKE_STATEMENTS.writeContent.text.replace(/\$(\d+)\b/g, (_, n: string) => {
        const node = [':n_id', ':kind', ':title', ':content', ':visibility', ':metadata', ':webhook'];
        const edge = [':e_id', ':n_id', ':collection', ':edge_type', ':edge_metadata', ':system', ':webhook'];
        // The delivery's log row: a fresh delivery id each time, like the HTTP runs' X-GitHub-Delivery.
        // Its masked request headers (migration 036), of a typical GitHub delivery's size.
        const headers = `'${JSON.stringify(BENCH_HEADERS)}'::jsonb`;
        const log = [':l_id', ':webhook', 'statement_timestamp()', ':d_id', ':event', ':bytes', '0', headers, 'null'];
        return [...node, ...edge, ...log][Number(n) - 1]!;
      });
      const notices = INTAKE_STATEMENTS.sendNotices.text.replace('$1::uuid[]', 'array[:n_id]::uuid[]').replace('$2::uuid[]', 'array[:e_id]::uuid[]');
      // No token lookup: a running API answers a known token from memory (issue 40). The notices
      // go once per write, where the API sends those of up to 20 ms of writes in one statement.
      sql = [made, `${write.replace(/\s+/g, ' ')};`, `${notices};`];
    }
    const file = path.join(this.workDir, `${kind}.sql`);
    await writeFile(file, [...vars, ...sql].join('\n') + '\n');
    return file;
  }

  private async pgbench(kind: CeilingKind, connections: number, seconds: number): Promise<Figures> {
    const logPrefix = path.join(this.workDir, `log-${kind}-${connections}-${Date.now()}`);
    const vars = {
      token: this.scene.webhook.token,
      kind: this.node.node_kind,
      title: this.node.title ?? '',
      content: this.node.content ?? '',
      visibility: this.node.visibility,
      metadata: JSON.stringify(this.node.metadata),
      webhook: this.scene.webhook.id,
      collection: this.scene.collectionId,
      edge_type: 'belongs_to',
      edge_metadata: '{}',
      system: 'true',
      event: 'push',
      bytes: String(this.bodyBytes),
    };
    const args = ['-n', '-M', 'prepared', '-c', String(connections), '-j', '1', '-T', String(seconds), '-f', this.scripts.get(kind)!, '-l', `--log-prefix=${logPrefix}`];
    const started = performance.now();
    const child = spawn(PGBENCH, [...args, ...Object.entries(vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]), this.url], { env: { ...process.env, PGAPPNAME: 'inntak-bench-ceiling' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // The sessions' CPU over the middle of the run: read once they are connected and again
    // before pgbench ends them; divided by the transactions that ended in between.
    const window = Math.min(1000, (seconds * 1000) / 4);
    await new Promise((r) => setTimeout(r, window));
    const pids = await this.sessionPids();
    const from = [Date.now(), await cpuMs(pids)] as const;
    await new Promise((r) => setTimeout(r, seconds * 1000 - 2 * window));
    const to = [Date.now(), await cpuMs(pids)] as const;
    const status = await exited;
    const elapsed = (performance.now() - started) / 1000;
    if (status !== 0) throw new Error(`pgbench failed: ${stderr}`);
    const latencies: number[] = [];
    let inWindow = 0;
    for (const file of (await readdir(this.workDir)).filter((f) => f.startsWith(path.basename(logPrefix)))) {
      // client_id transaction_no time(µs) script_no time_epoch time_us
      for (const line of (await readFile(path.join(this.workDir, file), 'utf8')).split('\n')) {
        if (!line) continue;
        const fields = line.split(' ');
        latencies.push(Number(fields[2]) / 1000);
        const ended = Number(fields[4]) * 1000 + Number(fields[5]) / 1000;
        if (ended >= from[0] && ended < to[0]) inWindow++;
      }
    }
    latencies.sort((a, b) => a - b);
    const failed = /number of failed transactions: (\d+)/.exec(stdout);
    const measured = /duration: (\d+) s/.exec(stdout);
    const used = cpuUsed(from[1], to[1]);
    return {
      count: latencies.length,
      errors: failed ? Number(failed[1]) : 0,
      latencies,
      seconds: measured ? Number(measured[1]) : elapsed,
      dbCpu: used === undefined || inWindow === 0 ? undefined : used / inWindow,
    };
  }

  private async sessionPids(): Promise<number[]> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      const rows = await client.query<{ pid: number }>("select pid from pg_stat_activity where application_name = 'inntak-bench-ceiling' and datname = current_database()");
      return rows.rows.map((r) => r.pid);
    } finally {
      await client.end();
    }
  }

  private async nodePg(kind: CeilingKind, connections: number, seconds: number): Promise<Figures> {
    this.pool ??= new pg.Pool({ connectionString: this.url, max: 64 });
    this.pool.on('error', () => {}); // dropping the scratch database ends its last idle connections
    const pool = this.pool;
    const { scene, node: n } = this;
    const write = async () => {
      const nodeId = uuidv7();
      const edgeId = uuidv7();
      if (kind === 'minimal') {
        const client = await pool.connect();
        try {
          await minimalWrite(client, scene, n, nodeId, edgeId);
        } finally {
          client.release();
        }
        return;
      }
      const target = { id: scene.webhook.id, target_id: scene.collectionId };
      await pool.query({
        ...INTAKE_STATEMENTS.writeContent,
        values: [
          ...[nodeId, n.node_kind, n.title, n.content, n.visibility, JSON.stringify(n.metadata), target.id],
          ...[edgeId, nodeId, target.target_id, 'belongs_to', '{}', true, target.id],
          ...[uuidv7(), target.id, new Date(), randomUUID(), 'push', this.bodyBytes, 0, JSON.stringify(BENCH_HEADERS), null],
        ],
      });
      await pool.query({ ...INTAKE_STATEMENTS.sendNotices, values: [[nodeId], [edgeId]] });
    };
    return runLoop(write, connections, seconds);
  }
}

export async function runLoop(work: (worker: number) => Promise<void>, concurrency: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await work(worker);
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, errors, latencies, seconds: (performance.now() - started) / 1000 };
}
