import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from '@jest/globals';
import { parseCrontab } from 'graphile-worker';
import winston from 'winston';
import { openDatabase } from '@inntak/postgres';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { DEFAULT_BUDGET } from '@inntak/orchestration';
import { CRONTAB_FILE, loadConfig } from './config.js';
import { LocalFileStore } from '@inntak/files';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { HOUSEKEEPING_TASKS, jobBodies } from './task-list.js';
import { postgresGraphRepair, postgresMediaDeps } from './worker.js';

// The pool never connects: the task list is only built, not run.
const database = openDatabase({ connectionString: 'postgres://127.0.0.1:1/unused', logger: winston.createLogger({ silent: true }) });
afterAll(() => database.close());

describe('the worker crontab (apps/worker/crontab)', () => {
  it('parses, and names only tasks the worker has', () => {
    const items = parseCrontab(readFileSync(CRONTAB_FILE, 'utf8'));
    const media = postgresMediaDeps(database.db, { files: new LocalFileStore('/nonexistent'), synthesizer: new EspeakSpeechSynthesizer() });
    const known = [...HOUSEKEEPING_TASKS, ...Object.keys(jobBodies(postgresGraphRepair(database.db), media, { httpAllow: [], cliAllow: [], budget: DEFAULT_BUDGET, store: new PostgresOrchestrationStore(database.db) }))];
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) expect(known).toContain(item.task);
  });

  it('runs the disk check every minute (spec: 60 s)', () => {
    expect(readFileSync(CRONTAB_FILE, 'utf8')).toMatch(/^\* \* \* \* \* disk_monitor /m);
  });

  it('plans the scheduled orchestrations every minute (docs/orchestration.md)', () => {
    expect(readFileSync(CRONTAB_FILE, 'utf8')).toMatch(/^\* \* \* \* \* orchestration_schedule /m);
  });

  it('is the worker’s crontab unless WORKER_CRONTAB replaces it', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://x' }, []).crontab).toBe(readFileSync(CRONTAB_FILE, 'utf8'));
    expect(loadConfig({ DATABASE_URL: 'postgres://x', WORKER_CRONTAB: '' }, []).crontab).toBe('');
  });
});
