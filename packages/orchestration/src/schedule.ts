import { parseCronItem } from 'graphile-worker';

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
