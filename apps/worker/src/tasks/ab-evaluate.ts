import type { Task } from 'graphile-worker';
import type { Logger } from '@inntak/core';
import { runAbEvaluation, type AbTestStore } from '@inntak/ab-testing';

/**
 * The crontab's A/B evaluator (spec: every 300 s). Housekeeping outside the governor, like the
 * disk check: one short transaction of SQL, no CPU weight worth governing.
 */
export function abEvaluate(deps: { abTests: AbTestStore; logger: Logger }): Task {
  return async () => {
    const reports = await runAbEvaluation(deps.abTests);
    const decided = reports.filter((r) => r.decision === 'winner');
    // Tests whose split is off decide nothing until it evens out: worth seeing in the log.
    const splitOff = reports.filter((r) => r.reason === 'sample_ratio_mismatch').map((r) => r.article_id);
    deps.logger.info('A/B tests evaluated', { tests: reports.length, decided: decided.length, winners: decided.map((r) => r.winner), sample_ratio_mismatch: splitOff });
  };
}
