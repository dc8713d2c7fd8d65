// Orchestration: the log, the run's orchestration and event as its creator reads them, the graph actions.
// Matching and exactly-once queueing are SQL (db/migrations/011.do.orchestration.sql).
export { loadOrchestration, loadEventVariables, recordLogEntry, readOrchestrationLog, type OrchestrationToRun, type LogEntryView } from './orchestration-runs.js';
export { runGraphAction, spendBudget, loadCliTool, addCollectionOrchestration, createOrchestration, requireOrchestrationRoom, postsToOwnWebhook, type RunContext } from './graph-actions.js';
