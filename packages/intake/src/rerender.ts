import { storable } from '@inntak/core';
import { DEFAULT_LOCALE, isLocale, renderPayload, TEMPLATE_HEADERS, type Headers, type JsonObject, type Locale } from '@inntak/templates';

/** Metadata keys of a webhook's content node that belong to the intake, not to a template. */
const INTAKE_KEYS = new Set(['source', 'webhook_id', 'payload', 'event_headers']);

export interface Rerendered {
  title: string | null;
  content: string | null;
  /** The previous rendering's keys that the new one does not set: to remove. */
  removedKeys: string[];
  /** The new rendering's keys (never the intake's own: the stored payload is left as it is). */
  setKeys: JsonObject;
  /** The template that rendered it; null for generic extraction. */
  templateId: string | null;
  templateError?: string;
}

/**
 * A stored delivery rendered again with `templateId` (the webhook's template now): from the
 * payload and the event headers kept in the node's metadata. The previous rendering's keys are
 * found by rendering again with the template the metadata names (`template`, or generic
 * extraction) and replaced by the new rendering's; the intake's keys (the payload among them,
 * which is never rewritten: jsonb keeps digits a JavaScript number would lose) and any key
 * another part of the system added stay.
 */
export function rerenderContent(templateId: string | null, metadata: JsonObject, locale: Locale = DEFAULT_LOCALE): Rerendered {
  const payload = metadata.payload ?? {};
  const headers = storedHeaders(metadata.event_headers);
  const previousTemplate = typeof metadata.template === 'string' ? metadata.template : null;
  const previousKeys = Object.keys(renderPayload(previousTemplate, payload, headers).result.extra_metadata);
  const rendering = renderPayload(templateId, payload, headers, locale);
  const setKeys = Object.fromEntries(Object.entries(rendering.result.extra_metadata).filter(([key]) => !INTAKE_KEYS.has(key)));
  const removedKeys = previousKeys.filter((key) => !INTAKE_KEYS.has(key) && !(key in setKeys) && key in metadata);
  return {
    // As the intake stores them (webhookContentNode): empty is null.
    title: rendering.result.title === '' ? null : storable(rendering.result.title),
    content: rendering.result.content === '' ? null : storable(rendering.result.content),
    removedKeys,
    setKeys,
    templateId: rendering.templateId,
    ...(rendering.templateError !== undefined ? { templateError: rendering.templateError } : {}),
  };
}

function storedHeaders(value: unknown): Headers {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const headers: Record<string, string> = {};
  for (const name of TEMPLATE_HEADERS) {
    const header = (value as Record<string, unknown>)[name];
    if (typeof header === 'string') headers[name] = header;
  }
  return headers;
}

/** A webhook's `metadata.locale` as the language its deliveries are written in: nb unless it names en. */
export function webhookLocaleOf(value: unknown): Locale {
  return isLocale(value) ? value : DEFAULT_LOCALE;
}
