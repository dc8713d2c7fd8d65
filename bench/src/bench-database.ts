import { migrate, startEmbeddedPostgres, withClient } from '@inntak/postgres';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * A migrated scratch database for one benchmark run: on DATABASE_URL's server if set, else on
 * this machine's PostgreSQL at 127.0.0.1:5432, else on an embedded one under .data/bench.
 * `drop()` drops it (and stops the embedded server, if one was started).
 */
export async function scratchDatabase(name: string): Promise<{ url: string; fresh: boolean; drop(): Promise<void> }> {
  const server = await findServer();
  await withClient(server.url, (c) => c.query(`drop database if exists "${name}" with (force)`));
  await withClient(server.url, (c) => c.query(`create database "${name}"`));
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return {
    url: url.toString(),
    fresh: true,
    async drop() {
      await withClient(server.url, (c) => c.query(`drop database if exists "${name}" with (force)`));
      await server.stop();
    },
  };
}

/**
 * A seeded database kept between runs: reused (and migrated forward) when its `bench_seed`
 * row says it holds `size` nodes, else made afresh like a scratch database. Never dropped.
 */
export async function keptDatabase(name: string, size: number): Promise<{ url: string; fresh: boolean; drop(): Promise<void> }> {
  const server = await findServer();
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  const seeded = await withClient(url.toString(), (c) =>
    c.query<{ size: string }>('select size from bench_seed').then((r) => Number(r.rows[0]?.size) === size),
  ).catch(() => false);
  if (!seeded) {
    const made = await scratchDatabase(name);
    await withClient(made.url, (c) => c.query(`create table bench_seed as select ${size}::bigint as size where false`));
    return { ...made, drop: async () => {} };
  }
  await migrate(url.toString());
  return { url: url.toString(), fresh: false, drop: server.stop };
}

async function findServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    await withClient(url, (c) => c.query('select 1'));
    return { url, stop: async () => {} };
  } catch (err) {
    if (process.env.DATABASE_URL) throw err;
    console.log('no PostgreSQL at 127.0.0.1:5432; starting an embedded one under .data/bench');
    return startEmbeddedPostgres({ dataDir: '.data/bench', port: 54339, logger: quiet, database: 'postgres' });
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
