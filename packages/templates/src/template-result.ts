import { storable } from '@inntak/core';
import type { JsonObject, TemplateResult } from './types.js';
import type { Locale } from './locale.js';
import { capped, factLines, oneLine } from './text-format.js';
import { at, firstStr, textAt } from './field-access.js';

/**
 * Keys every template's extra metadata carries. `sender` names the external system; the node's
 * own `source` (always "webhook") and `payload`/`webhook_id` are never overwritten.
 */
export interface MetadataBase {
  template: string;
  template_version: number;
  sender: string;
  event?: string;
  /** The language the template wrote in (locale.ts); kept so a re-render can tell. */
  locale?: Locale;
}

const RESERVED = new Set(['source', 'payload', 'webhook_id']);

/** Metadata values are names, refs, shas and URLs: a longer one is an attack, not a fact. */
const META_MAX = 2000;

/** The extra metadata object: base keys, then the defined facts; absent facts are left out. */
export function extraMetadata(base: MetadataBase, facts: Record<string, unknown>): JsonObject {
  // for-in instead of spreads and Object.entries: this runs once per delivery and is the hot path.
  const out: JsonObject = {};
  for (const key in base) put(out, key, base[key as keyof MetadataBase]);
  for (const key in facts) put(out, key, facts[key]);
  return out;
}

function put(out: JsonObject, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || RESERVED.has(key)) return;
  if (typeof value === 'string') out[key] = storable(capped(value, META_MAX));
  else if (!Array.isArray(value)) out[key] = value;
  else if (value.length > 0) out[key] = value.map((v: unknown) => (typeof v === 'string' ? storable(capped(v, META_MAX)) : v));
}

export function result(title: string, content: string, metadata: JsonObject): TemplateResult {
  return { title: storable(oneLine(title)), content: storable(content), extra_metadata: metadata };
}

/** `[repo] ` before a title, or nothing when the repository is unknown. */
export function repoPrefix(repository: string | undefined): string {
  return repository === undefined ? '' : `[${oneLine(repository, 100)}] `;
}

/**
 * A known sender's event that the template does not render in detail: a generic title such as
 * "[repo] GitHub event `star` (created) by alice", never an error.
 */
export function unsupportedEvent(
  base: MetadataBase & { event: string },
  senderName: string,
  facts: { repository?: string; actor?: string; payload: unknown },
): TemplateResult {
  const action = firstStr(at(facts.payload, 'action'), at(facts.payload, 'object_attributes', 'action'));
  const url = firstStr(textAt(facts.payload, 'repository', 'html_url'), textAt(facts.payload, 'project', 'web_url'));
  const title =
    `${repoPrefix(facts.repository)}${senderName} event \`${oneLine(base.event, 60)}\`` +
    `${action ? ` (${oneLine(action, 40)})` : ''}${facts.actor ? ` by ${oneLine(facts.actor, 60)}` : ''}`;
  const content = [
    `This ${senderName} event is not rendered in detail by the ${base.template} template.`,
    '',
    ...factLines(
      [
        ['Event', base.event],
        ['Action', action],
        ['Repository', facts.repository],
        ['Actor', facts.actor],
        ['URL', url],
      ],
      base.locale,
    ),
  ].join('\n');
  const metadata = extraMetadata(base, { action, repository: facts.repository, actor: facts.actor, supported: false });
  return { ...result(title, content, metadata), unsupported_event: base.event };
}
