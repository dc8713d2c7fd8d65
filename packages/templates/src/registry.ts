import { genericExtraction } from './generic-extraction.js';
import type { Headers, Template, TemplateInfo, TemplateResult } from './types.js';

/** The templates intake knows, by id. Issue #3 fills this list with the five senders' templates. */
export const TEMPLATES: readonly Template[] = [];

const byId = new Map(TEMPLATES.map((t) => [t.id, t]));

export function findTemplate(id: string): Template | undefined {
  return byId.get(id);
}

export function listTemplates(): TemplateInfo[] {
  return TEMPLATES.map(({ id, title, description, senders }) => ({ id, title, description, senders }));
}

export interface Rendering {
  result: TemplateResult;
  /** The template that rendered the payload, or null when generic extraction did. */
  templateId: string | null;
  /** True when the webhook names a template this service does not know (the caller logs it). */
  unknownTemplate: boolean;
}

/**
 * Step 3 of the spec's intake order: a known template renders, an unknown or absent one falls
 * back to generic extraction.
 */
export function renderPayload(templateId: string | null | undefined, payload: unknown, headers: Headers): Rendering {
  if (templateId === null || templateId === undefined) {
    return { result: genericExtraction(payload), templateId: null, unknownTemplate: false };
  }
  const template = findTemplate(templateId);
  if (!template) return { result: genericExtraction(payload), templateId: null, unknownTemplate: true };
  return { result: template.render(payload, headers), templateId: template.id, unknownTemplate: false };
}
