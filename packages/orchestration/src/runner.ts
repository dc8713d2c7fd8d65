import { coerceError } from '@inntak/core';
import { ACTION_INPUTS } from './actions.js';
import { describePath } from './script.js';
import type { ActionCall, ActionPort, EventVariables, JsonObject, Script, StepRecord } from './types.js';
import { resolveUrl, resolveVariables, type VariableContext } from './variables.js';

/**
 * Thrown by an action port for an action it did not run and will not run in this run (the root
 * event's budget is spent): the step is logged as `skipped` and the run stops, without fallbacks,
 * which would be refused the same way.
 */
export class ActionSkipped extends Error {}

export interface RunDeps {
  port: ActionPort;
  /** Writes one log row; awaited, so the log is in step order. */
  record(entry: StepRecord): Promise<void>;
  signal: AbortSignal;
  now?: () => number;
}

export type RunOutcome = { kind: 'completed'; steps: number } | { kind: 'stopped'; step: number; error: string };

/**
 * Runs a script's steps in order. A failed step runs its fallback; when that fails too (or there
 * is none) the global fallback runs with `{error}`, and the run stops. Every step, fallback and
 * the stop is one record. A step whose fallback succeeded counts as done: its fallback's output
 * is `{steps.n.output}` and the run goes on.
 */
export async function runScript(script: Script, event: EventVariables, deps: RunDeps): Promise<RunOutcome> {
  const outputs = new Map<number, JsonObject>();
  const now = deps.now ?? (() => performance.now());
  type Attempt = { ok: true; output: JsonObject; ms: number } | { ok: false; error: string; ms: number; skipped?: true };
  const attempt = async (call: ActionCall, context: VariableContext): Promise<Attempt> => {
    const started = now();
    const ms = () => Math.round(now() - started);
    try {
      const resolved = resolveInput(call, context);
      const input = ACTION_INPUTS[call.action].safeParse(resolved);
      if (!input.success) {
        const issue = input.error.issues[0]!;
        return { ok: false, error: `Ugyldig input til ${call.action}: ${describePath(issue.path as (string | number)[])}: ${issue.message}`, ms: ms() };
      }
      const output = await deps.port.run(call.action, input.data as JsonObject, deps.signal);
      return { ok: true, output, ms: ms() };
    } catch (error) {
      if (error instanceof ActionSkipped) return { ok: false, error: error.message, ms: ms(), skipped: true };
      return { ok: false, error: coerceError(error).message, ms: ms() };
    }
  };
  const stopSkipped = async (number: number, action: ActionCall['action'], fallback: StepRecord['fallback'], error: string): Promise<RunOutcome> => {
    const left = script.steps.length - number + (fallback === null ? 1 : 0);
    await deps.record({ step: number, action, fallback, status: 'skipped', error: `${error}; ${left} steg hoppet over`, duration_ms: 0 });
    return { kind: 'stopped', step: number, error };
  };

  for (const [index, step] of script.steps.entries()) {
    deps.signal.throwIfAborted();
    const number = index + 1;
    const first = await attempt(step, { event, outputs });
    if (!first.ok && first.skipped) return stopSkipped(number, step.action, null, first.error);
    if (first.ok) {
      await deps.record({ step: number, action: step.action, fallback: null, status: 'ok', output: first.output, duration_ms: first.ms });
      outputs.set(number, first.output);
      continue;
    }
    await deps.record({ step: number, action: step.action, fallback: null, status: 'failed', error: first.error, duration_ms: first.ms });
    let error = first.error;
    if (step.fallback) {
      const fallback = await attempt(step.fallback, { event, outputs, error });
      if (!fallback.ok && fallback.skipped) return stopSkipped(number, step.fallback.action, 'step', fallback.error);
      if (fallback.ok) {
        await deps.record({ step: number, action: step.fallback.action, fallback: 'step', status: 'fallback_ok', output: fallback.output, duration_ms: fallback.ms });
        outputs.set(number, fallback.output);
        continue;
      }
      await deps.record({ step: number, action: step.fallback.action, fallback: 'step', status: 'fallback_failed', error: fallback.error, duration_ms: fallback.ms });
      error = fallback.error;
    }
    if (script.fallback) {
      const global = await attempt(script.fallback, { event, outputs, error });
      if (!global.ok && global.skipped) return stopSkipped(number, script.fallback.action, 'global', global.error);
      await deps.record(
        global.ok
          ? { step: number, action: script.fallback.action, fallback: 'global', status: 'fallback_ok', output: global.output, duration_ms: global.ms }
          : { step: number, action: script.fallback.action, fallback: 'global', status: 'fallback_failed', error: global.error, duration_ms: global.ms },
      );
    }
    const left = script.steps.length - number;
    await deps.record({ step: number, action: null, fallback: null, status: 'skipped', error: `Stoppet etter feil i steg ${number}; ${left} steg hoppet over`, duration_ms: 0 });
    return { kind: 'stopped', step: number, error };
  }
  return { kind: 'completed', steps: script.steps.length };
}

/**
 * An action's input with its variables filled in. In an http_post URL every variable is
 * percent-encoded: what an event's sender wrote fills one part of the URL and cannot change its
 * path or query (docs/orchestration.md).
 */
function resolveInput(call: ActionCall, context: VariableContext): unknown {
  if (call.action !== 'http_post' || typeof call.with.url !== 'string') return resolveVariables(call.with, context);
  const { url, ...rest } = call.with;
  return { ...(resolveVariables(rest, context) as JsonObject), url: resolveUrl(url, context) };
}
