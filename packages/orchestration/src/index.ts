// Orchestration: scripts, variables, triggers, the runner, and the run's use cases (graph actions, the cap per
// person, cli tools, the log's access) over the OrchestrationStore port (ports.ts).
export * from './types.js';
export { ACTION_INPUTS, templateSchema, type ActionInputs } from './actions.js';
export { parseScript, stepCount, describePath, ScriptError, MAX_SCRIPT_BYTES, MAX_STEPS } from './script.js';
export { checkOrchestrationNode } from './trigger.js';
export { resolveVariables, resolveUrl, variablesIn, checkVariable, VariableError, type VariableContext, type VariableScope } from './variables.js';
export { runScript, ActionSkipped, type RunDeps, type RunOutcome } from './runner.js';
export { hostAllowed, commandAllowed } from './allow-lists.js';
export type { OrchestrationStore, OrchestrationTx, OrchestrationToRun, LogEntryView, RunContext } from './ports.js';
export { runGraphAction, requireOrchestrationRoom, createOrchestration, loadCliTool, addCollectionOrchestration, readOrchestrationLog } from './graph-actions.js';
export { requireNotOwnWebhook, uuidsInUrl } from './own-webhooks.js';
