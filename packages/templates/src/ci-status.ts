/**
 * The one status vocabulary of ci-build. Every CI system has its own words; each maps to one of
 * five, and the sender's word is kept beside it.
 *   succeeded: the build passed (warnings and "fixed" included)
 *   failed:    it ran and did not pass (errors, timeouts, infrastructure failures, unstable)
 *   running:   not finished yet (queued, pending, scheduled and in progress alike)
 *   canceled:  stopped by a person or by the system before finishing
 *   other:     anything else (skipped, neutral, blocked, manual, unknown)
 */
export type CiStatus = 'succeeded' | 'failed' | 'running' | 'canceled' | 'other';

const WORDS: ReadonlyArray<readonly [CiStatus, readonly string[]]> = [
  ['succeeded', ['success', 'succeeded', 'successful', 'passed', 'pass', 'fixed', 'ok', 'green', 'stable', 'warnings', 'succeeded_with_issues', 'no_tests']],
  [
    'failed',
    [
      'failure', 'failed', 'fail', 'error', 'errored', 'broken', 'still_failing', 'still failing', 'timed_out', 'timedout',
      'timeout', 'infrastructure_fail', 'infrastructure_failure', 'startup_failure', 'unstable', 'exception', 'rejected', 'red',
    ],
  ],
  [
    'running',
    [
      'running', 'in_progress', 'inprogress', 'started', 'start', 'triggered', 'pending', 'queued', 'queuing', 'created', 'scheduled',
      'waiting', 'requested', 'preparing', 'testing', 'building', 'notstarted', 'not_started', 'waiting_for_resource',
      'retry', 'initializing', 'new', 'enqueued', 'blocked_waiting',
    ],
  ],
  ['canceled', ['canceled', 'cancelled', 'cancel', 'stopped', 'aborted', 'killed', 'terminated', 'interrupted', 'stopping', 'canceling', 'cancelling']],
];

const TABLE = new Map<string, CiStatus>(WORDS.flatMap(([status, words]) => words.map((w) => [w, status] as const)));

export function normalizeCiStatus(word: string | undefined): CiStatus {
  if (word === undefined) return 'other';
  return TABLE.get(word.trim().toLowerCase().replace(/[\s-]+/g, '_')) ?? TABLE.get(word.trim().toLowerCase()) ?? 'other';
}

/** Buildbot's numeric results (buildbot.process.results). */
export const BUILDBOT_RESULTS = ['success', 'warnings', 'failure', 'skipped', 'exception', 'retry', 'cancelled'] as const;
