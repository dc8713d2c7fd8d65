import type { Logger } from '@inntak/core';
import { hourOfWeek } from './hour-of-week.js';
import type { AbCountRow } from './ports.js';
import { UNCOUNTED_REASONS, type UncountedReason } from './visitors.js';

export interface AbRecorderOptions {
  /** Counts are written at most this long after they were counted (issue: at least every second). */
  flushMs?: number;
  clock?: () => Date;
}

/**
 * Impressions and clicks of front-page variants, counted in memory and written in batches: one
 * row per (variant, hour of the week) per flush instead of one insert per page view. A failed
 * write puts its counts back for the next flush; close() writes what is left (the API's
 * SIGTERM drain calls it after the last request), so none are lost on shutdown.
 */
export class AbRecorder {
  private pending = new Map<string, AbCountRow>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly flushMs: number;
  private readonly clock: () => Date;

  constructor(
    private readonly write: (rows: AbCountRow[]) => Promise<unknown>,
    private readonly logger: Logger,
    options: AbRecorderOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 1000;
    this.clock = options.clock ?? (() => new Date());
  }

  impression(variantId: string): void {
    this.count(variantId, 1, 0);
  }

  click(variantId: string): void {
    this.count(variantId, 0, 1);
  }

  /** An impression shown but not counted, and why: written in the same batch row as the counted ones (no extra round trip). */
  uncounted(variantId: string, reason: UncountedReason): void {
    this.add({ variant_edge_id: variantId, hour_of_week: hourOfWeek(this.clock()), impressions: 0, clicks: 0, [`uncounted_${reason}`]: 1 });
    this.scheduleFlush();
  }

  /** Writes everything counted so far; resolves when it is in the database (or put back after a failure). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeBatch());
    return this.writing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  private count(variantId: string, impressions: number, clicks: number): void {
    this.add({ variant_edge_id: variantId, hour_of_week: hourOfWeek(this.clock()), impressions, clicks });
    this.scheduleFlush();
  }

  /** Adds a row's counts to the pending row of its variant and hour. */
  private add(row: AbCountRow): void {
    const key = `${row.variant_edge_id}/${row.hour_of_week}`;
    const current = this.pending.get(key);
    if (current) {
      current.impressions += row.impressions;
      current.clicks += row.clicks;
      for (const reason of UNCOUNTED_REASONS) {
        const n = row[`uncounted_${reason}`];
        if (n) current[`uncounted_${reason}`] = (current[`uncounted_${reason}`] ?? 0) + n;
      }
    } else {
      this.pending.set(key, { ...row });
    }
  }

  private scheduleFlush(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
    // The server keeps the process alive; a pending flush alone should not.
    this.timer.unref();
  }

  private async writeBatch(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    try {
      await this.write(batch);
    } catch (error) {
      this.logger.warn('AB events could not be written; kept for the next flush', { rows: batch.length, error: (error as Error).message });
      for (const row of batch) this.add(row);
      this.scheduleFlush();
    }
  }
}
