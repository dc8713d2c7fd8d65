import type pg from 'pg';
import type { Logger } from '@inntak/core';
import type { GovernorSource, JobRule, NoticeListener, RunningJob } from '@inntak/jobs';
import type { Db } from '../platform/index.js';
import { JOBS_CHANNEL } from './job-admin.js';
import { loadRules, loadRunningSet } from './job-store.js';

/**
 * The governor's source on PostgreSQL: rules and the running set from the job tables, and job
 * notices through LISTEN on one pooled client, held while listening and remade a second after a
 * loss (the worker's pool is sized for it: concurrency + 3).
 */
export class PostgresGovernorSource implements GovernorSource {
  constructor(
    private readonly db: Db,
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  loadRules(): Promise<Map<string, JobRule>> {
    return loadRules(this.db);
  }

  loadRunningSet(): Promise<RunningJob[]> {
    return loadRunningSet(this.db);
  }

  async listen(onNotice: (payload: string) => void): Promise<NoticeListener> {
    let client: pg.PoolClient | undefined;
    let stopped = false;
    const connect = async (): Promise<void> => {
      if (stopped) return;
      try {
        const next = await this.pool.connect();
        client = next;
        next.on('notification', (message) => {
          if (message.channel === JOBS_CHANNEL && message.payload) onNotice(message.payload);
        });
        next.on('error', (err) => {
          this.logger.warn('job notification listener lost; reconnecting', { error: err.message });
          next.release(err);
          client = undefined;
          setTimeout(() => void connect(), 1000).unref();
        });
        await next.query(`listen ${JOBS_CHANNEL}`);
      } catch (err) {
        this.logger.warn('job notification listener failed; retrying', { error: (err as Error).message });
        setTimeout(() => void connect(), 1000).unref();
      }
    };
    await connect();
    return {
      stop: async () => {
        stopped = true;
        const held = client;
        client = undefined;
        if (held) {
          await held.query(`unlisten ${JOBS_CHANNEL}`).catch(() => {});
          held.release();
        }
      },
    };
  }
}
