import { actorName, detectForgeEvent, repositoryName, SENDER_NAMES, type ForgeEvent } from './forge-sender.js';
import { unsupportedEvent, type MetadataBase } from './template-result.js';
import type { Headers, TemplateResult } from './types.js';

/**
 * The frame the three forge templates share: detect the sender and event, read the facts the
 * template renders, or fall back to the generic "unsupported event" rendering when the event is
 * not one this template knows.
 */
export function renderForgeEvent<Facts>(
  template: { id: string; version: number },
  payload: unknown,
  headers: Headers,
  read: (payload: unknown, detected: ForgeEvent) => Facts | undefined,
  render: (facts: Facts, base: MetadataBase) => TemplateResult,
): TemplateResult {
  const detected = detectForgeEvent(payload, headers);
  const base = { template: template.id, template_version: template.version, sender: detected.sender, event: detected.event };
  const facts = read(payload, detected);
  if (facts !== undefined) return render(facts, base);
  return unsupportedEvent(base, SENDER_NAMES[detected.sender], {
    repository: repositoryName(payload, detected.sender),
    actor: actorName(payload, detected.sender),
    payload,
  });
}
