import { isAlias, isMap, isNode, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode } from 'yaml';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import { templateSchema } from './actions.js';
import { conditionComparisons, conditionDepth, ConditionShape, conditionVariables, MAX_CONDITION_COMPARISONS, MAX_CONDITION_DEPTH, type Condition } from './conditions.js';
import { ACTIONS, isFilterStep, MAX_RETRY_WAIT_SECONDS, retryWaitSeconds, type ActionCall, type EventType, type Script, type Step } from './types.js';
import { checkVariable, variablesIn, type VariableScope } from './variables.js';

// Validation messages in Norwegian, like the API's.
z.config(z.locales.no());

export const MAX_SCRIPT_BYTES = 64 * 1024;
export const MAX_STEPS = 50;

/** A script problem, placed where it is in the text (1-based line and column). */
export class ScriptError extends Error {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly problem: string,
  ) {
    super(`linje ${line}, kolonne ${column}: ${problem}`);
    this.name = 'ScriptError';
  }

  /** The 400 every entry point answers with (validate_orchestration, create_node). */
  toAppError(): AppError {
    // The cause keeps the position, so a form can show it beside the script (the console).
    return new AppError('invalid_input', { detail: `skript: ${this.message}`, cause: this });
  }
}

const Call = z.strictObject({ action: z.enum(ACTIONS), with: z.record(z.string(), z.unknown()).default({}) });
const OneVariable = z.string().regex(/^\{[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*\}$/, 'forventet én {variabel} som holder en liste');
const ActionStepShape = Call.extend({
  fallback: Call.optional(),
  when: ConditionShape.optional(),
  retry: z
    .strictObject({ attempts: z.number().int().min(2).max(5), backoff: z.number().min(0).max(60) })
    // Every wait re-queues the run (it holds no worker slot), but a run should still end within a
    // job's timeout of its start: 60 s × 5 attempts used to wait 900 s (issue 35).
    .superRefine((r, ctx) => {
      if (retryWaitSeconds(r) > MAX_RETRY_WAIT_SECONDS) ctx.addIssue({ code: 'custom', message: `ventetiden blir i alt ${retryWaitSeconds(r)} s; høyst ${MAX_RETRY_WAIT_SECONDS} s` });
    })
    .optional(),
  for_each: OneVariable.optional(),
});
const FilterStepShape = z.strictObject({ filter: ConditionShape, when: ConditionShape.optional() });
// Each step is checked by its own shape below (a filter or an action), so a problem is placed in it.
const ScriptShape = z.strictObject({ steps: z.array(z.record(z.string(), z.unknown())).min(1).max(MAX_STEPS), fallback: Call.optional() });

/**
 * Parses and checks a script: YAML syntax, the shape, each action's input, and every variable
 * (known root, `{error}` only in fallbacks, `{steps.n}` only after step n). Throws a ScriptError
 * for the first problem. With `event`, `{event.*}` variables are checked against that event.
 */
export function parseScript(text: string, options: { event?: EventType } = {}): Script {
  const lineCounter = new LineCounter();
  const at = (offset: number, problem: string): ScriptError => {
    const { line, col } = lineCounter.linePos(offset);
    return new ScriptError(line, col, problem);
  };
  if (Buffer.byteLength(text) > MAX_SCRIPT_BYTES) throw new ScriptError(1, 1, `skriptet er større enn ${MAX_SCRIPT_BYTES} byte`);
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) throw at(syntax.pos[0], `ugyldig YAML: ${firstLine(syntax.message)}`);
  // Aliases could expand a small text into a huge value; a script has no use for them.
  let alias: YamlNode | undefined;
  visitNodes(doc.contents, (node) => {
    if (!alias && isAlias(node)) alias = node;
  });
  if (alias) throw at(alias.range?.[0] ?? 0, 'YAML-aliaser (*navn) er ikke tillatt i skript');

  const value = doc.toJS({ maxAliasCount: 0 }) as unknown;
  const shape = ScriptShape.safeParse(value);
  if (!shape.success) throw issueError(doc, at, shape.error.issues[0]!, []);
  const steps: Step[] = shape.data.steps.map((raw, index) => {
    const parsed = ('filter' in raw ? FilterStepShape : ActionStepShape).safeParse(raw);
    if (!parsed.success) throw issueError(doc, at, parsed.error.issues[0]!, ['steps', index]);
    return parsed.data as Step;
  });
  const script: Script = { steps, ...(shape.data.fallback ? { fallback: shape.data.fallback as ActionCall } : {}) };

  const calls: Array<{ call: ActionCall; path: (string | number)[]; scope: VariableScope }> = [];
  const conditions: Array<{ condition: Condition; path: (string | number)[]; scope: VariableScope }> = [];
  script.steps.forEach((step, index) => {
    const number = index + 1;
    const scope: VariableScope = { step: number, inFallback: false, event: options.event };
    if (step.when) conditions.push({ condition: step.when, path: ['steps', index, 'when'], scope });
    if (isFilterStep(step)) {
      conditions.push({ condition: step.filter, path: ['steps', index, 'filter'], scope });
      return;
    }
    if (step.retry && step.action !== 'http_post') throw at(offsetOf(doc, ['steps', index, 'retry']), `steg ${number}: retry gjelder bare http_post`);
    if (step.for_each) {
      const message = checkVariable(step.for_each.slice(1, -1), scope);
      if (message) throw at(offsetOf(doc, ['steps', index, 'for_each']), `steg ${number}: for_each: ${message}`);
    }
    calls.push({ call: step, path: ['steps', index], scope: { ...scope, inLoop: step.for_each !== undefined } });
    if (step.fallback) calls.push({ call: step.fallback, path: ['steps', index, 'fallback'], scope: { step: number, inFallback: true, event: options.event } });
  });
  for (const { condition, path, scope } of conditions) {
    const problem = conditionProblem(condition, scope);
    if (problem) throw at(offsetOf(doc, [...path, ...problem.path]), `${describePath(path)}${problem.path.length ? '.' + problem.path.join('.') : ''}: ${problem.message}`);
  }
  if (script.fallback) calls.push({ call: script.fallback, path: ['fallback'], scope: { step: script.steps.length + 1, inFallback: true, event: options.event } });

  for (const { call, path, scope } of calls) {
    const input = templateSchema(call.action).safeParse(call.with);
    if (!input.success) throw issueError(doc, at, input.error.issues[0]!, [...path, 'with']);
    // {secrets.NAME} may stand in http_post's headers only: the log never shows a header.
    const { headers, ...rest } = call.with;
    const problem =
      firstVariableProblem(rest, [...path, 'with'], scope) ??
      firstVariableProblem(headers, [...path, 'with', 'headers'], { ...scope, secrets: call.action === 'http_post' });
    if (problem) throw at(offsetOf(doc, problem.path), `${describePath(problem.path)}: ${problem.message}`);
  }
  return script;
}

/**
 * Why a condition (a when, a filter, a trigger's where) cannot stand where it is: nested too deep,
 * too many comparisons, or a variable that can never resolve there. The path is within the condition.
 */
export function conditionProblem(condition: Condition, scope: VariableScope): { path: (string | number)[]; message: string } | null {
  if (conditionDepth(condition) > MAX_CONDITION_DEPTH) return { path: [], message: `vilkår kan nøstes høyst ${MAX_CONDITION_DEPTH} nivåer` };
  if (conditionComparisons(condition) > MAX_CONDITION_COMPARISONS) return { path: [], message: `et vilkår kan ha høyst ${MAX_CONDITION_COMPARISONS} sammenligninger` };
  for (const { variable, path } of conditionVariables(condition)) {
    const message = checkVariable(variable, scope);
    if (message) return { path, message };
  }
  return null;
}

/** Number of steps, for validate_orchestration's answer. */
export function stepCount(script: Script): number {
  return script.steps.length;
}

function firstVariableProblem(value: unknown, path: (string | number)[], scope: VariableScope): { path: (string | number)[]; message: string } | null {
  if (typeof value === 'string') {
    for (const variable of variablesIn(value)) {
      const message = checkVariable(variable, scope);
      if (message) return { path, message };
    }
    return null;
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstVariableProblem(item, [...path, index], scope);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = firstVariableProblem(item, [...path, key], scope);
      if (found) return found;
    }
  }
  return null;
}

function issueError(doc: Document, at: (offset: number, problem: string) => ScriptError, issue: z.core.$ZodIssue, prefix: (string | number)[]): ScriptError {
  const path = [...prefix, ...(issue.path as (string | number)[])];
  // An unknown key is placed on the key itself; anything else on the value it concerns.
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) {
    const key = issue.keys[0];
    return at(offsetOfKey(doc, path, key), `${describePath([...path, key])}: ukjent felt`);
  }
  return at(offsetOf(doc, path), `${describePath(path)}: ${issue.message}`);
}

/** Steps are numbered from 1 in messages, the log and `{steps.n}`. */
export function describePath(path: (string | number)[]): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const segment = path[i]!;
    if (segment === 'steps' && typeof path[i + 1] === 'number') {
      parts.push(`steg ${(path[i + 1] as number) + 1}`);
      i++;
    } else parts.push(String(segment));
  }
  return parts.length === 0 ? 'skriptet' : parts.join('.').replace(/^(steg \d+)\./, '$1: ');
}

/** Offset of the deepest node on the path that exists in the document. */
function offsetOf(doc: Document, path: (string | number)[]): number {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return 0;
}

function offsetOfKey(doc: Document, path: (string | number)[], key: string): number {
  const parent = path.length === 0 ? doc.contents : doc.getIn(path, true);
  if (isMap(parent)) {
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === key);
    if (pair && isScalar(pair.key) && pair.key.range) return pair.key.range[0];
  }
  return offsetOf(doc, path);
}

function visitNodes(node: unknown, visit: (node: YamlNode) => void): void {
  if (!isNode(node)) return;
  visit(node);
  if (isMap(node)) {
    for (const pair of node.items) {
      visitNodes(pair.key, visit);
      visitNodes(pair.value, visit);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) visitNodes(item, visit);
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0]!;
}
