import { z } from 'zod';
import { AppError } from '@inntak/core';
import { normalizeTag, type JsonObject } from '@inntak/graph';
import { parseScript, type ScriptError } from './script.js';
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
