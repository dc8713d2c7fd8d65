export { AB_STATUSES, isAbStatus, ctr, MIN_IMPRESSIONS, SIGNIFICANCE, type AbStatus, type VariantCounts } from './types.js';
export { twoProportionZTest, erfc } from './z-test.js';
export { selectVariant, type SelectableVariant } from './selection.js';
export { evaluateTest, type TestDecision, type Comparison } from './evaluator.js';
export { hourOfWeek } from './hour-of-week.js';
