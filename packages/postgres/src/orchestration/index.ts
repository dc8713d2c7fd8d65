// Orchestration: the log, the run's orchestration and event as its creator reads them, the run's writes (the port).
// Matching and exactly-once queueing are SQL (db/migrations/011.do.orchestration.sql).
export { loadOrchestration, loadEventVariables, recordLogEntry, orchestrationLogPage } from './orchestration-runs.js';
export { PostgresOrchestrationStore } from './orchestration-store.js';
export { resumeLostRuns, LOST_WORKER_RESUMES, type LostRunsReport } from './lost-runs.js';
export type { OrchestrationToRun, LogEntryView, RunContext } from '@inntak/orchestration';
