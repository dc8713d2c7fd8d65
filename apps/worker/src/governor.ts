import { cachedLiveRoomStatus, DEFAULT_LIMITS, forbiddenTypes, type GovernorSource, type JobRule, type LiveRoomStatus, type NoticeListener, type RunningJob } from '@inntak/jobs';
import type { Logger } from '@inntak/core';

export interface GovernorOptions {
  /** The job tables and their notices (PostgresGovernorSource). */
  source: GovernorSource;
  logger: Logger;
  liveRooms: LiveRoomStatus;
  liveRoomCacheMs: number;
  rulesCacheMs: number;
  /** Job types this process runs; those without a rule are governed by the default rule. */
  jobTypes: string[];
}

/**
 * This process's view of the governor: forbiddenFlags for graphile-worker from the shared running
 * set, rules cached until a NOTIFY says they changed, and the abort handles of its running jobs
 * (a cancel arrives as a NOTIFY too).
 */
export class Governor {
  readonly liveRooms: LiveRoomStatus;
  private rules: { value: Promise<Map<string, JobRule>>; at: number } | undefined;
  private runningInFlight: Promise<RunningJob[]> | undefined;
  private readonly running = new Map<number, AbortController>();
  /** Cancels that arrived before their job was tracked (NOTIFY can overtake the admission's reply). */
  private readonly earlyCancels = new Map<number, number>();
  private listener: NoticeListener | undefined;
  private stopped = false;

  constructor(private readonly options: GovernorOptions) {
    this.liveRooms = cachedLiveRoomStatus(options.liveRooms, options.liveRoomCacheMs);
  }

  /** graphile-worker's forbiddenFlags: the types that would break a limit if one started now. */
  readonly forbiddenFlags = async (): Promise<string[]> => {
    try {
      const [rules, running, liveRoomActive] = await Promise.all([this.loadRules(), this.loadRunning(), this.liveRooms.isActive()]);
      return forbiddenTypes({ rules, running, liveRoomActive, limits: DEFAULT_LIMITS }, this.options.jobTypes);
    } catch (err) {
      // Without a view, start nothing new; the strict check at job start would catch it anyway.
      this.options.logger.warn('governor view failed; forbidding every job type', { error: (err as Error).message });
      return [...this.options.jobTypes];
    }
  };

  private loadRules(): Promise<Map<string, JobRule>> {
    const now = Date.now();
    if (!this.rules || now - this.rules.at >= this.options.rulesCacheMs) {
      const value = this.options.source.loadRules();
      this.rules = { value, at: now };
      value.catch(() => (this.rules = undefined));
    }
    return this.rules.value;
  }

  /** Workers of one process fetching together share one read of the running set. */
  private loadRunning(): Promise<RunningJob[]> {
    this.runningInFlight ??= this.options.source.loadRunningSet().finally(() => (this.runningInFlight = undefined));
    return this.runningInFlight;
  }

  track(historyId: number, controller: AbortController): () => void {
    this.running.set(historyId, controller);
    return () => this.running.delete(historyId);
  }

  /** Whether a cancel for this job arrived before it was tracked (the caller re-checks the row). */
  takeEarlyCancel(historyId: number): boolean {
    return this.earlyCancels.delete(historyId);
  }

  private rememberEarlyCancel(id: number): void {
    const now = Date.now();
    for (const [other, at] of this.earlyCancels) if (now - at > 60_000) this.earlyCancels.delete(other);
    this.earlyCancels.set(id, now);
  }

  async listen(): Promise<void> {
    if (this.stopped) return;
    this.listener = await this.options.source.listen((payload) => {
      if (payload === 'rules') {
        this.rules = undefined;
        this.options.logger.info('job priority rules changed; reloading');
      } else if (payload.startsWith('cancel:')) {
        const id = Number(payload.slice('cancel:'.length));
        const controller = this.running.get(id);
        if (controller) controller.abort(new JobCancelledError(id));
        else this.rememberEarlyCancel(id);
      }
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.stop();
  }
}

export class JobCancelledError extends Error {
  constructor(readonly historyId: number) {
    super(`job ${historyId} was cancelled`);
    this.name = 'JobCancelledError';
  }
}

export class JobTimeoutError extends Error {
  constructor(readonly seconds: number) {
    super(`job timed out after ${seconds} s and was aborted`);
    this.name = 'JobTimeoutError';
  }
}
