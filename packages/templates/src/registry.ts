import { chatMessage } from './chat-message.js';
import { ciBuild } from './ci-build.js';
import { forgeIssues } from './forge-issues.js';
import { forgePullRequest } from './forge-pull-request.js';
import { forgePush } from './forge-push.js';
import { genericExtraction } from './generic-extraction.js';
import type { Headers, Template, TemplateInfo, TemplateResult } from './types.js';
import { DEFAULT_LOCALE, type Locale } from './locale.js';

/** The templates intake knows, by id. */
export const TEMPLATES: readonly Template[] = [forgePush, forgeIssues, forgePullRequest, chatMessage, ciBuild];

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
  /**
   * Set when the template threw. Templates are written to be total, so this is a bug; the payload
   * still gets generic extraction rather than a 500, and the caller logs the message.
   */
  templateError?: string;
}

/**
 * Step 3 of the spec's intake order: a known template renders, an unknown or absent one falls
 * back to generic extraction.
 */
export function renderPayload(templateId: string | null | undefined, payload: unknown, headers: Headers, locale: Locale = DEFAULT_LOCALE): Rendering {
  if (templateId === null || templateId === undefined) {
    return { result: genericExtraction(payload), templateId: null, unknownTemplate: false };
  }
  const template = findTemplate(templateId);
  if (!template) return { result: genericExtraction(payload), templateId: null, unknownTemplate: true };
  try {
    return { result: template.render(payload, headers, locale), templateId: template.id, unknownTemplate: false };
  } catch (err) {
    return {
      result: genericExtraction(payload),
      templateId: template.id,
      unknownTemplate: false,
      templateError: err instanceof Error ? err.message : String(err),
    };
  }
}
