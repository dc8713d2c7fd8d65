// Orchestration: scripts, variables, triggers, the runner, and the run's use cases (graph actions, the cap per
// person, cli tools, the log's access) over the OrchestrationStore port (ports.ts).
export * from './types.js';
export { ACTION_INPUTS, templateSchema, type ActionInputs } from './actions.js';
export { parseScript, stepCount, describePath, conditionProblem, ScriptError, MAX_SCRIPT_BYTES, MAX_STEPS } from './script.js';
export { evaluateCondition, globMatches, ConditionShape, MATCH_TEXT_CAP, MAX_CONDITION_DEPTH, type Condition, type Comparison } from './conditions.js';
export { nextRunAfter, cronProblem, syncSchedule } from './schedule.js';
export { checkOrchestrationNode } from './trigger.js';
export { resolveVariables, resolveUrl, variablesIn, checkVariable, lookupVariable, VariableError, type VariableContext, type VariableScope } from './variables.js';
export { runScript, ActionSkipped, MAX_FOR_EACH_ITEMS, type RunDeps, type RunOutcome } from './runner.js';
export { hostAllowed, commandAllowed } from './allow-lists.js';
export type { OrchestrationStore, OrchestrationTx, OrchestrationToRun, LogEntryView, RunContext, RunRef, RunStatus, RunView, RunAttempt } from './ports.js';
export { MAX_RUN_ATTEMPTS_KEPT } from './ports.js';
export {
  updateOrchestration,
  setOrchestrationEnabled,
  deleteOrchestration,
  runOrchestration,
  rerunOrchestration,
  readOrchestration,
  type RerunFrom,
  sameRunner,
  listOrchestrationRuns,
  setOrchestrationSecret,
  planScheduledRuns,
  MAX_RUN_INPUT_BYTES,
} from './manage.js';
export { runGraphAction, requireOrchestrationRoom, createOrchestration, loadCliTool, addCollectionOrchestration, readOrchestrationLog } from './graph-actions.js';
export { requireNotOwnWebhook, uuidsInUrl } from './own-webhooks.js';
export { orchestrateEvent, type OrchestrateDeps, type OrchestrateRequest, type OrchestrateContext, type OutsideActions } from './orchestrate-event.js';
