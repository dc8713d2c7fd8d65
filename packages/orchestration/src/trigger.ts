import { z } from 'zod';
import { AppError } from '@inntak/core';
import { normalizeTag, type JsonObject } from '@inntak/graph';
import { ConditionShape } from './conditions.js';
import { cronProblem } from './schedule.js';
import { conditionProblem, parseScript, type ScriptError } from './script.js';
import { EVENT_TYPES, type Script, type Trigger } from './types.js';

const Name = z.string().min(1).max(100);
const TriggerShape = z.strictObject({
  event: z.enum(EVENT_TYPES),
  conditions: z
    .strictObject({
      node_kind: Name.optional(),
      edge_type: Name.optional(),
      has_trait: Name.optional(),
      has_tag: z.string().min(1).max(200).optional(),
    })
    .optional(),
  where: ConditionShape.optional(),
  cron: z.string().min(9).max(200).optional(),
});

/**
 * Checks an orchestration node before it is saved: `metadata.trigger` and the script in
 * `content`. Returns the trigger with its tag normalized (the database matches on the stored
 * value) and the parsed script. Throws the same 400 validate_orchestration answers.
 */
export function checkOrchestrationNode(node: { metadata?: JsonObject; content?: string | null }): { trigger: Trigger; script: Script } {
  const parsed = TriggerShape.safeParse(node.metadata?.trigger);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = ['metadata', 'trigger', ...issue.path.map(String)].join('.');
    throw new AppError('invalid_input', { detail: `${path}: ${issue.message}` });
  }
  const trigger: Trigger = parsed.data;
  const conditions = trigger.conditions;
  if (conditions?.edge_type !== undefined && trigger.event !== 'edge.created') {
    throw new AppError('invalid_input', { detail: 'metadata.trigger.conditions.edge_type: gjelder bare edge.created' });
  }
  const started = trigger.event === 'manual' || trigger.event === 'schedule';
  if (started && conditions && Object.keys(conditions).length > 0) {
    throw new AppError('invalid_input', { detail: `metadata.trigger.conditions: ${trigger.event} har ingen hendelse å stille vilkår til` });
  }
  if ((trigger.event === 'schedule') !== (trigger.cron !== undefined)) {
    throw new AppError('invalid_input', { detail: trigger.event === 'schedule' ? 'metadata.trigger.cron: mangler (fem felt, UTC)' : 'metadata.trigger.cron: gjelder bare schedule' });
  }
  if (trigger.cron !== undefined) {
    const problem = cronProblem(trigger.cron);
    if (problem) throw new AppError('invalid_input', { detail: `metadata.trigger.cron: ${problem}` });
  }
  if (trigger.where) {
    const problem = conditionProblem(trigger.where, { step: 1, inFallback: false, event: trigger.event });
    if (problem) throw new AppError('invalid_input', { detail: `metadata.trigger.where${problem.path.map((p) => `.${p}`).join('')}: ${problem.message}` });
  }
  if (conditions?.has_tag !== undefined) {
    const tag = normalizeTag(conditions.has_tag);
    if (tag === null) throw new AppError('invalid_input', { detail: 'metadata.trigger.conditions.has_tag: 1–64 tegn, uten skråstrek eller kontrolltegn' });
    conditions.has_tag = tag;
  }
  if (typeof node.content !== 'string' || node.content.trim() === '') {
    throw new AppError('invalid_input', { detail: 'content: skriptet mangler' });
  }
  try {
    return { trigger, script: parseScript(node.content, { event: trigger.event }) };
  } catch (error) {
    if ((error as ScriptError).name === 'ScriptError') throw (error as ScriptError).toAppError();
    throw error;
  }
}
