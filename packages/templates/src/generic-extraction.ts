import type { TemplateResult } from './types.js';

/** The spec's generic extraction: `title`, then `content` or else `body`; no extra metadata. */
export function genericExtraction(payload: unknown): TemplateResult {
  const fields = isObject(payload) ? payload : {};
  const title = typeof fields.title === 'string' ? fields.title : '';
  const chosen = 'content' in fields ? fields.content : fields.body;
  const content = typeof chosen === 'string' ? chosen : '';
  return { title, content, extra_metadata: {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
