export * from './types.js';
export { ACTION_INPUTS, templateSchema, type ActionInputs } from './actions.js';
export { parseScript, stepCount, describePath, ScriptError, MAX_SCRIPT_BYTES, MAX_STEPS } from './script.js';
export { checkOrchestrationNode } from './trigger.js';
export { resolveVariables, resolveUrl, variablesIn, checkVariable, VariableError, type VariableContext, type VariableScope } from './variables.js';
export { runScript, ActionSkipped, type RunDeps, type RunOutcome } from './runner.js';
export { hostAllowed, commandAllowed } from './allow-lists.js';
