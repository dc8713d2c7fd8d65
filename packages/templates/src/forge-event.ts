import { at, list, num, str, textAt } from './field-access.js';
import { actorName, detectForgeEvent, repositoryName, SENDER_NAMES, type ForgeEvent, type ForgeSender } from './forge-sender.js';
import { extraMetadata, repoPrefix, result, unsupportedEvent, type MetadataBase } from './template-result.js';
import { factLines, nameList, oneLine } from './text-format.js';
import type { Headers, TemplateResult } from './types.js';
import type { Locale } from './locale.js';

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
  locale: Locale = 'en',
): TemplateResult {
  const detected = detectForgeEvent(payload, headers);
  const base: MetadataBase & { event: string } = { template: template.id, template_version: template.version, sender: detected.sender, event: detected.event, locale };
  // Every new webhook gets a ping, whichever template it names.
  if (detected.kind === 'ping') return renderPing(payload, detected.sender, base);
  const facts = read(payload, detected);
  if (facts !== undefined) return render(facts, base);
  return unsupportedEvent(base, SENDER_NAMES[detected.sender], {
    repository: repositoryName(payload, detected.sender),
    actor: actorName(payload, detected.sender),
    payload,
  });
}

/**
 * GitHub's ping, sent once to every new webhook: "webhook set up" with the events it will send.
 * `hook.config.url` carries this service's own URL and token, so nothing of `config` is read.
 */
export function renderPing(payload: unknown, sender: ForgeSender, base: MetadataBase): TemplateResult {
  const repository = repositoryName(payload, sender) ?? textAt(payload, 'organization', 'login');
  const actor = actorName(payload, sender);
  const events = list(at(payload, 'hook', 'events')).map(str).filter((e): e is string => e !== undefined);
  const hookId = num(at(payload, 'hook', 'id')) ?? num(at(payload, 'hook_id'));
  // `*` is GitHub's "send me everything".
  const eventList = events.length === 1 && events[0] === '*' ? 'all events' : nameList(events);
  const title = `${repoPrefix(repository)}${SENDER_NAMES[sender]} webhook set up${eventList ? ` for ${oneLine(eventList, 120)}` : ''}`;
  const zen = str(at(payload, 'zen'));
  const content = [
    ...factLines(
      [
        ['Repository', repository],
        ['Events', eventList],
        ['Hook id', hookId],
        ['Set up by', actor],
      ],
      base.locale,
    ),
    ...(zen ? ['', `> ${oneLine(zen, 200)}`] : []),
  ].join('\n');
  return result(title, content, extraMetadata(base, { repository, actor, hook_id: hookId, events: events.length > 0 ? events : undefined }));
}
