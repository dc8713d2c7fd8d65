import { renderPayload } from './registry.js';
import type { Headers, JsonObject } from './types.js';
import { DEFAULT_LOCALE, type Locale } from './locale.js';

/** What an administrator sees before pointing a sender at a webhook: the node intake would create. */
export interface Preview {
  template_id: string;
  /** False when no template has this id; the preview then shows generic extraction, as intake would. */
  known_template: boolean;
  title: string;
  content: string;
  extra_metadata: JsonObject;
  reply?: JsonObject;
  unsupported_event?: string;
}

/** The preview use case: render a sample payload without storing anything. */
export function previewTemplate(templateId: string, payload: unknown, headers: Headers = {}, locale: Locale = DEFAULT_LOCALE): Preview {
  const rendering = renderPayload(templateId, payload, lowerCaseNames(headers), locale);
  const { title, content, extra_metadata, reply, unsupported_event } = rendering.result;
  const preview: Preview = { template_id: templateId, known_template: !rendering.unknownTemplate, title, content, extra_metadata };
  if (reply) preview.reply = reply;
  if (unsupported_event) preview.unsupported_event = unsupported_event;
  return preview;
}

/** A preview's headers are typed by a person (X-GitHub-Event); intake's are already lower-cased. */
function lowerCaseNames(headers: Headers): Headers {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === 'string') out[name.toLowerCase()] = value;
  return out;
}
