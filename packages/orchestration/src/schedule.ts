import { parseCronItem } from 'graphile-worker';
import type { OrchestrationTx } from './ports.js';
import type { Trigger } from './types.js';

/**
 * A `schedule` trigger's cron (five fields, UTC), matched with graphile-worker's own cron parser
 * (the one apps/worker/crontab goes through), so the syntax is the same in both places.
 */
const MINUTE = 60_000;
/** A cron that matches no minute within this many (a year and a day) is refused: `0 0 30 2 *`. */
const HORIZON_MINUTES = 366 * 24 * 60 + 1;

/** Null when the cron is valid, else why not. */
export function cronProblem(cron: string): string | null {
  try {
    return nextRunAfter(cron, new Date()) ? null : 'cron-uttrykket treffer ingen tid det neste året';
  } catch (error) {
    return `ugyldig cron-uttrykk (fem felt: minutt time dag måned ukedag): ${(error as Error).message}`;
  }
}

/**
 * The first whole minute after `after` the cron matches, or null within a year. The next run is
 * always counted from now, so runs missed while the service was down are not replayed.
 */
export function nextRunAfter(cron: string, after: Date): Date | null {
  const { match } = parseCronItem({ task: 'orchestration_schedule', match: cron });
  let at = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  for (let i = 0; i < HORIZON_MINUTES; i++, at += MINUTE) {
    const ts = new Date(at);
    if (match({ min: ts.getUTCMinutes(), hour: ts.getUTCHours(), date: ts.getUTCDate(), month: ts.getUTCMonth() + 1, dow: ts.getUTCDay() })) return ts;
  }
  return null;
}

/**
 * Keeps the schedule row of an orchestration in step with its trigger: a scheduled, enabled one is
 * next due at the first minute its cron matches after now; any other has none.
 */
export async function syncSchedule(tx: OrchestrationTx, id: string, trigger: Trigger | null, enabled: boolean, now = new Date()): Promise<void> {
  const due = trigger?.event === 'schedule' && trigger.cron && enabled ? nextRunAfter(trigger.cron, now) : null;
  await tx.setSchedule(id, due && trigger?.cron ? { cron: trigger.cron, nextAt: due } : null);
}

