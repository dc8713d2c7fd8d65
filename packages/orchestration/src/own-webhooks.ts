import type { OrchestrationStore } from './ports.js';

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every UUID in the URL, in every spelling (percent-encoded up to three times), lower case. */
export function uuidsInUrl(url: string): string[] {
  const spellings = new Set<string>([url]);
  let text = url;
  for (let i = 0; i < 3; i++) {
    try {
      text = decodeURIComponent(text);
    } catch {
      break;
    }
    spellings.add(text);
  }
  return [...new Set([...spellings].flatMap((s) => [...s.matchAll(UUID_IN_TEXT)].map((m) => m[0].toLowerCase())))];
}

/**
 * Refuses an http_post URL holding the token of one of the service's own webhooks, however it is
 * spelled (letter case, percent-encoding, in the path or the query). Posting there would write
 * into the webhook's collection through intake, as a new root event with a budget and depth of
 * its own, so an orchestration posting each new node to its own collection's webhook never
 * stopped (second attack on issue 22). Writing into a collection is create_node's work.
 */
export async function requireNotOwnWebhook(store: Pick<OrchestrationStore, 'isWebhookToken'>, url: string): Promise<void> {
  const tokens = uuidsInUrl(url);
  if (tokens.length > 0 && (await store.isWebhookToken(tokens))) {
    throw new Error('http_post: adressen går til en av tjenestens egne webhooker; bruk create_node (en kjede gjennom intake ville startet på nytt hver gang)');
  }
}
