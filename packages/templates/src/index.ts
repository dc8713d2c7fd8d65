export type { Headers, JsonObject, Template, TemplateInfo, TemplateResult } from './types.js';
export { TEMPLATE_HEADERS } from './types.js';
export { genericExtraction } from './generic-extraction.js';
export { TEMPLATES, findTemplate, listTemplates, renderPayload, type Rendering } from './registry.js';
export { previewTemplate, type Preview } from './preview.js';
export { normalizeCiStatus, type CiStatus } from './ci-status.js';
export { DEFAULT_LOCALE, LOCALES, isLocale, type Locale } from './locale.js';
