import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { Logger } from '@inntak/core';
import type { DiskProbe } from '@inntak/jobs';
import { diskStatus, newWorkerProcess, postgresResourceLog } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { checkDisk } from './disk-monitor.js';
import { StatfsDiskProbe } from './statfs-disk-probe.js';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startWorker } from './worker.js';

interface Entry {
  level: string;
  message: string;
  meta?: Record<string, unknown>;
}
const entries: Entry[] = [];
const logger: Logger = {
  error: (message, meta) => entries.push({ level: 'error', message, meta }),
  warn: (message, meta) => entries.push({ level: 'warn', message, meta }),
  info: (message, meta) => entries.push({ level: 'info', message, meta }),
  debug: () => {},
};

/** A probe the test sets: the disk port's second adapter. */
class FixedProbe implements DiskProbe {
  usedPercent = 50;
  async measure() {
    return { totalBytes: 1_000_000, freeBytes: 1_000_000 - this.usedPercent * 10_000 };
  }
}

let database: OpenTestDatabase;
beforeAll(async () => {
  // The database's own log (a slow query on a loaded machine) is not the monitor's.
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.dispose();
});

describe('disk monitor', () => {
  it('classifies 85 % warning, 90 % critical, 95 % emergency and logs at warning and above', async () => {
    const probe = new FixedProbe();
    const deps = { resources: postgresResourceLog(database.db), probe, logger, storageDir: '/srv/inntak', worker: newWorkerProcess() };
    const levels: string[] = [];
    for (const percent of [50, 85, 90, 95]) {
      probe.usedPercent = percent;
      levels.push((await checkDisk(deps)).level);
    }
    expect(levels).toEqual(['ok', 'warning', 'critical', 'emergency']);
    expect(entries.map((e) => `${e.level}:${e.meta?.level_name}`)).toEqual(['warn:warning', 'error:critical', 'error:emergency']);

    const status = await diskStatus(database.db);
    expect(status.current).toMatchObject({ used_percent: 95, level: 'emergency', path: '/srv/inntak', total_bytes: 1_000_000 });
    expect(status.history.map((h) => h.level)).toEqual(['emergency', 'critical', 'warning', 'ok']);
    const { rows } = await sql<{ n: string }>`select count(*) as n from resource_usage_log where cpu_count > 0 and memory_total_bytes > 0`.execute(database.db);
    expect(rows[0]!.n).toBe('4');
  });

  it('a worker measures the disk as it starts, so /admin/resources/disk is not empty until the first crontab tick', async () => {
    const fresh = await openTestDatabase(logger);
    try {
      expect((await diskStatus(fresh.db)).current).toBeNull();
      const probe = new FixedProbe();
      probe.usedPercent = 42;
      // No crontab at all: only the start-up measurement can have written the row.
      const config = { ...loadConfig({ DATABASE_URL: fresh.url, WORKER_CRONTAB: '' }, []), storageDir: '/srv/start' };
      const worker = await startWorker(config, createLogger('error'), { diskProbe: probe });
      try {
        expect((await diskStatus(fresh.db)).current).toMatchObject({ used_percent: 42, path: '/srv/start' });
      } finally {
        await worker.stop();
      }
    } finally {
      await fresh.dispose();
    }
  });

  it('measures a real directory with fs.statfs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inntak-disk-'));
    const usage = await new StatfsDiskProbe().measure(join(dir, 'storage'));
    expect(usage.totalBytes).toBeGreaterThan(0);
    expect(usage.freeBytes).toBeGreaterThanOrEqual(0);
    expect(usage.freeBytes).toBeLessThanOrEqual(usage.totalBytes);
  });
});
