export type { Headers, JsonObject, Template, TemplateInfo, TemplateResult } from './types.js';
export { genericExtraction } from './generic-extraction.js';
export { TEMPLATES, findTemplate, listTemplates, renderPayload, type Rendering } from './registry.js';
