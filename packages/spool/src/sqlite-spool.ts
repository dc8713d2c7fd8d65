import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { decodeEntry, decodeTarget, encodeEntry, encodeTarget, SpoolFullError, type KeptTarget, type Spool, type SpooledEntry, type SpoolEntry, type SpoolStats } from '@inntak/intake';

interface Pending {
  nodeId: string;
  text: string;
  arrivedAt: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export interface SqliteSpoolOptions {
  /** The folder of the spool's file (SPOOL_DIR); made readable by the service's user alone. */
  dir: string;
  maxBytes: number;
}

/**
 * The local spool: one SQLite file in WAL mode with synchronous=FULL, so a commit is on disk
 * when it returns. better-sqlite3 is synchronous, so appends are queued and written together
 * on the next turn of the event loop: every request that arrived meanwhile shares one
 * transaction and one fsync (group commit), which is what makes hundreds of appends a second
 * affordable.
 */
export class SqliteSpool implements Spool {
  private readonly db: Database.Database;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private bytes = 0;

  constructor(private readonly options: SqliteSpoolOptions) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    chmodSync(options.dir, 0o700);
    const file = join(options.dir, 'intake-spool.sqlite');
    this.db = new Database(file);
    // The WAL and shared-memory files are made with the main file's mode.
    chmodSync(file, 0o600);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.exec(`create table if not exists entries (ref integer primary key autoincrement, node_id text not null unique,
                    arrived_at integer not null, bytes integer not null, body text not null);
                  create table if not exists targets (token_hash text primary key, webhook_id text not null, body text not null);
                  create index if not exists targets_webhook on targets (webhook_id);`);
    const row = this.db.prepare('select coalesce(sum(bytes), 0) as bytes from entries').get() as { bytes: number };
    this.bytes = row.bytes;
  }

  append(entry: SpoolEntry): Promise<void> {
    const text = encodeEntry(entry);
    return new Promise((resolve, reject) => {
      this.queue.push({ nodeId: entry.node.id, text, arrivedAt: entry.log.receivedAt.getTime(), resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.queue;
    this.queue = [];
    const accepted: Pending[] = [];
    for (const p of batch) {
      const size = Buffer.byteLength(p.text);
      if (this.bytes + size > this.options.maxBytes) p.reject(new SpoolFullError(this.options.maxBytes));
      else {
        this.bytes += size;
        accepted.push(p);
      }
    }
    if (accepted.length === 0) return;
    const insert = this.db.prepare('insert or ignore into entries (node_id, arrived_at, bytes, body) values (?, ?, ?, ?)');
    try {
      this.db.transaction(() => {
        for (const p of accepted) insert.run(p.nodeId, p.arrivedAt, Buffer.byteLength(p.text), p.text);
      })();
    } catch (error) {
      for (const p of accepted) {
        this.bytes -= Buffer.byteLength(p.text);
        p.reject(error);
      }
      return;
    }
    for (const p of accepted) p.resolve();
  }

  async peek(limit: number): Promise<SpooledEntry[]> {
    const rows = this.db.prepare('select ref, bytes, body from entries order by ref limit ?').all(limit) as Array<{ ref: number; bytes: number; body: string }>;
    return rows.map((row) => ({ ...decodeEntry(row.body), ref: row.ref, bytes: row.bytes }));
  }

  async remove(refs: readonly number[]): Promise<void> {
    const del = this.db.prepare('delete from entries where ref = ? returning bytes');
    this.db.transaction(() => {
      for (const ref of refs) {
        const gone = del.get(ref) as { bytes: number } | undefined;
        if (gone) this.bytes -= gone.bytes;
      }
    })();
  }

  async stats(): Promise<SpoolStats> {
    const row = this.db.prepare('select count(*) as entries, min(arrived_at) as oldest from entries').get() as { entries: number; oldest: number | null };
    return { entries: row.entries, bytes: this.bytes, oldestAt: row.oldest === null ? null : new Date(row.oldest) };
  }

  async keepTargets(webhookId: string, kept: readonly KeptTarget[]): Promise<void> {
    this.db.transaction(() => {
      // The webhook's tokens as a whole: a rotated token's row goes, a previous one in its grace stays listed.
      this.db.prepare('delete from targets where webhook_id = ?').run(webhookId);
      const insert = this.db.prepare('insert or replace into targets (token_hash, webhook_id, body) values (?, ?, ?)');
      for (const one of kept) insert.run(one.tokenHash, webhookId, encodeTarget(one));
    })();
  }

  async forgetTarget(webhookId: string): Promise<void> {
    this.db.prepare('delete from targets where webhook_id = ?').run(webhookId);
  }

  async targets(): Promise<KeptTarget[]> {
    const rows = this.db.prepare('select body from targets').all() as Array<{ body: string }>;
    return rows.map((row) => decodeTarget(row.body));
  }

  async close(): Promise<void> {
    this.flush();
    this.db.close();
  }
}

