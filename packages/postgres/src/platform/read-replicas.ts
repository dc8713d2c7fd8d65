import { AsyncLocalStorage } from 'node:async_hooks';
import { sql } from 'kysely';
import { AppError, type Logger } from '@inntak/core';
import type { DatabaseHandle, Db } from './database.js';

export interface ReadReplica {
  /** For logs: host and port, never the password. */
  name: string;
  database: DatabaseHandle;
}

export interface ReadReplicasOptions {
  primary: DatabaseHandle;
  replicas: ReadReplica[];
  logger: Logger;
  /** A replica further behind the primary than this many bytes of WAL leaves rotation (16 MB). */
  maxLagBytes?: number;
  /** How long a read waits for a replica to replay what it must see before using the primary (200 ms). */
  waitMs?: number;
  /** How often each replica's health and lag are checked (1 s). */
  checkMs?: number;
  /** A replica whose check has not answered in this long is out of rotation (1.5 s): a frozen one must not stay in. */
  checkTimeoutMs?: number;
}

/** A read run where ReadReplicas decides: `fn` gets the database to use and is run again on the primary if the replica fails it. */
export type ReadOn = <T>(fn: (db: Db) => Promise<T>) => Promise<T>;

/**
 * Whether a read that failed on a replica should be tried on the primary: the replica's fault
 * (connection lost or refused, no answer in time, shut down, a conflict with recovery, out of
 * resources), not the query's (bad SQL, bad data, a statement_timeout the query set for itself,
 * an error the code already mapped).
 */
function replicaFault(err: unknown): boolean {
  if (err instanceof AppError) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code.startsWith('53') || code.startsWith('57P') || code === '40001';
}

interface Writer {
  /** Write requests of this caller still running: their commit position is not known yet. */
  pending: number;
  /** The primary's WAL position after the caller's last write: a read must see at least this. */
  lsn?: string;
}

/** A WAL position as PostgreSQL prints it (`16/B374D848`: two hexadecimal 32-bit halves) as a number. */
function walOrdinal(lsn: string): bigint {
  const [high, low] = lsn.split('/') as [string, string];
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The later of two WAL positions (either may be absent). */
function laterOf(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  return walOrdinal(a) >= walOrdinal(b) ? a : b;
}

/** Callers whose last write is remembered (the oldest are forgotten first). */
const WRITERS_KEPT = 10_000;

/**
 * Reads on streaming replicas (READ_DATABASE_URL, docs/scaling.md). A read goes to a replica in
 * rotation, in turn, with two exceptions that keep it from looking back in time:
 *
 * - read-your-writes: a caller with a write still running reads from the primary; after it
 *   ended, the caller's reads wait (up to `waitMs`) until the replica has replayed the
 *   primary's WAL position taken after that write, else read from the primary;
 * - `consistent()` reads (a socket's initial_sync, a published page about to be cached) wait
 *   for the primary's current position the same way, so they are never older than the change
 *   notices that led to them.
 *
 * A replica that fails its check, is not in recovery, or lags past `maxLagBytes` leaves
 * rotation until a check finds it well again; both changes are logged. With no replica in
 * rotation every read goes to the primary. The caller of a request is known through
 * `withCaller` (AsyncLocalStorage), so the stores need no parameter for it.
 */
export class ReadReplicas {
  private readonly inRotation: boolean[];
  private readonly writers = new Map<string, Writer>();
  private readonly caller = new AsyncLocalStorage<{ key?: string; after?: string; person?: () => string | undefined }>();
  private turn = 0;
  /** Whether each replica has been checked once: a replica failing its first check is a misconfiguration to log loudly. */
  private readonly checked: boolean[];
  /** Why each replica is out of rotation (absent: in rotation), for /health/ready and /metrics. */
  private readonly problems: (string | undefined)[];
  /** The latest primary WAL position seen (checks, writes, consistent reads): nothing past it needs asking. */
  private primarySeen = 0n;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ReadReplicasOptions) {
    this.inRotation = options.replicas.map(() => false);
    this.checked = options.replicas.map(() => false);
    this.problems = options.replicas.map(() => 'not checked yet');
  }

  /** Checks every replica now, then every `checkMs`. */
  async start(): Promise<void> {
    await this.check();
    let running = false;
    this.timer = setInterval(() => {
      // A check lasts at most checkTimeoutMs; one still running is not doubled.
      if (running) return;
      running = true;
      void this.check().finally(() => {
        running = false;
      });
    }, this.options.checkMs ?? 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /**
   * Runs `fn` with reads attributed to `key` (one caller: e.g. a hash of its credentials) and,
   * when the request names one, a WAL position its reads must include (`after`: a position an
   * earlier write's answer gave, from this API process or another).
   */
  withCaller<T>(key: string | undefined, fn: () => T, after?: string, person?: () => string | undefined): T {
    return this.caller.run({ key, after, person }, fn);
  }

  /** The primary's WAL position now: after a write that has committed, a position that includes it. */
  position(): Promise<string> {
    return this.primaryPosition();
  }

  /** A write by the current caller begins: until it is recorded, the caller reads the primary. */
  beginWrite(key: string): void {
    const writer = this.writers.get(key) ?? { pending: 0 };
    writer.pending++;
    this.writers.delete(key);
    this.writers.set(key, writer);
    while (this.writers.size > WRITERS_KEPT) this.writers.delete(this.writers.keys().next().value!);
  }

  /**
   * The write ended (committed or not): remember the primary's WAL position after it, for the
   * credentials and, once known, for the person (issue 38: their next read with another token, a
   * refreshed one, still follows the write).
   */
  async endWrite(key: string, person?: string): Promise<void> {
    const writer = this.writers.get(key);
    // The person's reads wait for this write from now on (synchronously, before the position is
    // read back): their next request may come with another token and reach us before it is.
    const personKey = person === undefined ? undefined : `person:${person}`;
    const theirs = personKey === undefined ? undefined : (this.writers.get(personKey) ?? { pending: 0 });
    if (personKey !== undefined && theirs) {
      theirs.pending++;
      this.writers.delete(personKey);
      this.writers.set(personKey, theirs);
    }
    try {
      if (writer && this.options.replicas.length > 0) {
        writer.lsn = await this.primaryPosition();
        if (theirs) theirs.lsn = laterOf(theirs.lsn, writer.lsn);
      }
    } finally {
      if (writer) writer.pending--;
      if (theirs) theirs.pending--;
    }
  }

  /** The database for a read by the current caller (see the class comment). */
  async reader(): Promise<Db> {
    const { key, after, person } = this.caller.getStore() ?? {};
    const writer = key === undefined ? undefined : this.writers.get(key);
    if (writer && writer.pending > 0) return this.options.primary.db;
    // The person is known once the request authenticated, after the routing began.
    const personId = person?.();
    const theirs = personId === undefined ? undefined : this.writers.get(`person:${personId}`);
    if (theirs && theirs.pending > 0) return this.options.primary.db;
    return this.replicaAt(laterOf(laterOf(writer?.lsn, theirs?.lsn), await this.atMostPrimary(after)));
  }

  /**
   * A position a client sent (`Inntak-Read-After`), but never past the primary's own: nothing
   * beyond it has been written, so the primary's position asks for every write there is. A
   * made-up position far ahead (`FFFFFFFF/FFFFFFFF`) made every read wait `waitMs` for a replay
   * that could never come and then load the primary (issue 35, finding 5); now it costs one
   * `pg_current_wal_lsn()` when it passes the last position seen, and reads as a consistent read.
   */
  private async atMostPrimary(after: string | undefined): Promise<string | undefined> {
    if (after === undefined || walOrdinal(after) <= this.primarySeen) return after;
    const now = await this.primaryPosition();
    return walOrdinal(after) <= walOrdinal(now) ? after : now;
  }

  /** The database for a read that must include every change committed before it began. */
  async consistent(): Promise<Db> {
    if (!this.inRotation.some(Boolean)) return this.options.primary.db;
    return this.replicaAt(await this.primaryPosition());
  }

  /** Names of the replicas in rotation (for /metrics and tests). */
  rotation(): string[] {
    return this.options.replicas.filter((_, i) => this.inRotation[i]).map((r) => r.name);
  }

  /** Every replica, in rotation or why not (for /health/ready and /metrics). */
  status(): { name: string; in_rotation: boolean; reason?: string }[] {
    return this.options.replicas.map((r, i) => ({ name: r.name, in_rotation: this.inRotation[i]!, ...(this.problems[i] ? { reason: this.problems[i] } : {}) }));
  }

  /**
   * Runs a read on `reader()`'s database; when a replica fails it (issue 38: stopped, frozen,
   * unreachable), the replica leaves rotation at once and the read runs again on the primary,
   * in the same request. A read is idempotent, so running it twice costs only time.
   */
  read<T>(fn: (db: Db) => Promise<T>, consistent = false): Promise<T> {
    return this.withFallback(consistent ? this.consistent() : this.reader(), fn);
  }

  private async withFallback<T>(chosen: Promise<Db>, fn: (db: Db) => Promise<T>): Promise<T> {
    const db = await chosen.catch(() => this.options.primary.db);
    if (db === this.options.primary.db) return fn(db);
    try {
      return await fn(db);
    } catch (err) {
      if (!replicaFault(err)) throw err;
      const i = this.options.replicas.findIndex((r) => r.database.db === db);
      this.leave(i, `a read failed: ${(err as Error).message}`);
      return fn(this.options.primary.db);
    }
  }

  private leave(i: number, problem: string): void {
    const replica = this.options.replicas[i];
    if (!replica) return;
    const was = this.inRotation[i];
    this.inRotation[i] = false;
    this.problems[i] = problem;
    if (was) this.options.logger.warn('read replica out of rotation', { replica: replica.name, reason: problem });
  }

  /** Checks each replica: reachable, in recovery, and within maxLagBytes of the primary. */
  async check(): Promise<void> {
    const maxLag = this.options.maxLagBytes ?? 16 * 1024 * 1024;
    let primary: string | undefined;
    try {
      primary = await this.primaryPosition();
    } catch {
      // The primary is down: lag cannot be judged; keep the rotation as it is.
      return;
    }
    await Promise.all(
      this.options.replicas.map(async (replica, i) => {
        let problem: string | undefined;
        const limitMs = this.options.checkTimeoutMs ?? 1500;
        let timer: NodeJS.Timeout | undefined;
        try {
          const late = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer in ${limitMs} ms`)), limitMs);
          });
          const { rows } = await Promise.race([
            sql<{ standby: boolean; lag: string | null }>`
            select pg_is_in_recovery() as standby, pg_wal_lsn_diff(${primary}::pg_lsn, pg_last_wal_replay_lsn())::text as lag`.execute(replica.database.db),
            late,
          ]);
          const row = rows[0]!;
          if (!row.standby) problem = 'not a standby (promoted?)';
          else if (row.lag === null || Number(row.lag) > maxLag) problem = `lags ${row.lag ?? '?'} bytes behind the primary (limit ${maxLag})`;
        } catch (err) {
          problem = `unreachable: ${(err as Error).message}`;
        } finally {
          clearTimeout(timer);
        }
        const [was, first] = [this.inRotation[i], !this.checked[i]];
        this.checked[i] = true;
        this.inRotation[i] = problem === undefined;
        this.problems[i] = problem;
        // A replica failing its first check is most likely misconfigured (READ_DATABASE_URL): say so at start.
        if ((was || first) && problem) this.options.logger.warn('read replica out of rotation', { replica: replica.name, reason: problem });
        if (!was && !problem) this.options.logger.info('read replica in rotation', { replica: replica.name });
        if (!was && !first && problem) this.options.logger.debug('read replica still out of rotation', { replica: replica.name, reason: problem });
      }),
    );
  }

  private async primaryPosition(): Promise<string> {
    const { rows } = await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(this.options.primary.db);
    const lsn = rows[0]!.lsn;
    const ordinal = walOrdinal(lsn);
    if (ordinal > this.primarySeen) this.primarySeen = ordinal;
    return lsn;
  }

  /** The next replica in rotation once it has replayed `lsn` (within waitMs), else the primary. */
  private async replicaAt(lsn: string | undefined): Promise<Db> {
    const candidates = this.options.replicas.filter((_, i) => this.inRotation[i]);
    if (candidates.length === 0) return this.options.primary.db;
    const replica = candidates[this.turn++ % candidates.length]!;
    if (lsn === undefined) return replica.database.db;
    const deadline = Date.now() + (this.options.waitMs ?? 200);
    for (;;) {
      try {
        const { rows } = await sql<{ caught: boolean }>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as caught`.execute(replica.database.db);
        if (rows[0]!.caught) return replica.database.db;
      } catch {
        return this.options.primary.db;
      }
      if (Date.now() >= deadline) return this.options.primary.db;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}
