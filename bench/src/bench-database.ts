import pg from 'pg';
import { migrate } from '@inntak/postgres';

/**
 * A scratch database for one benchmark run, migrated: on DATABASE_URL's server if set, else on
 * this machine's PostgreSQL at 127.0.0.1:5432. Dropped by `drop()`.
 */
export async function scratchDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    try {
      await client.query(query);
    } finally {
      await client.end();
    }
  };
  await admin(`drop database if exists "${name}" with (force)`);
  await admin(`create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
