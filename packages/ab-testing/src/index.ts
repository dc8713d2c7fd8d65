export { AB_STATUSES, isAbStatus, ctr, MIN_IMPRESSIONS, SIGNIFICANCE, type AbStatus, type VariantCounts } from './types.js';
export { twoProportionZTest, erfc } from './z-test.js';
export { selectVariant, type SelectableVariant } from './selection.js';
export { evaluateTest, type TestDecision, type Comparison } from './evaluator.js';
export { hourOfWeek } from './hour-of-week.js';
export { runAbEvaluation, MAX_TESTS_PER_RUN, type TestReport } from './evaluation.js';
export type { AbTestStore, AbTestTx, AbDecisionWrites, TestingVariant, AbCountRow } from './ports.js';
