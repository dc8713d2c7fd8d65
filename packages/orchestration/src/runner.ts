import { coerceError } from '@inntak/core';
import { ACTION_INPUTS } from './actions.js';
import { describePath } from './script.js';
import type { ActionCall, ActionPort, EventVariables, JsonObject, Script, StepRecord } from './types.js';
import { resolveVariables, type VariableContext } from './variables.js';

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
  const attempt = async (call: ActionCall, context: VariableContext): Promise<{ ok: true; output: JsonObject; ms: number } | { ok: false; error: string; ms: number }> => {
    const started = now();
    const ms = () => Math.round(now() - started);
    try {
      const resolved = resolveVariables(call.with, context);
      const input = ACTION_INPUTS[call.action].safeParse(resolved);
      if (!input.success) {
        const issue = input.error.issues[0]!;
        return { ok: false, error: `Ugyldig input til ${call.action}: ${describePath(issue.path as (string | number)[])}: ${issue.message}`, ms: ms() };
      }
      const output = await deps.port.run(call.action, input.data as JsonObject, deps.signal);
      return { ok: true, output, ms: ms() };
    } catch (error) {
      return { ok: false, error: coerceError(error).message, ms: ms() };
    }
  };

  for (const [index, step] of script.steps.entries()) {
    deps.signal.throwIfAborted();
    const number = index + 1;
    const first = await attempt(step, { event, outputs });
    if (first.ok) {
      await deps.record({ step: number, action: step.action, fallback: null, status: 'ok', output: first.output, duration_ms: first.ms });
      outputs.set(number, first.output);
      continue;
    }
    await deps.record({ step: number, action: step.action, fallback: null, status: 'failed', error: first.error, duration_ms: first.ms });
    let error = first.error;
    if (step.fallback) {
      const fallback = await attempt(step.fallback, { event, outputs, error });
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
