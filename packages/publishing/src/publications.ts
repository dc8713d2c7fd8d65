import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { PageLanguage } from './models.js';
import type { PublishingStore } from './ports.js';
import { isValidSlug, normalizeDomain } from './validation.js';

export interface NewPublication {
  title: string;
  slug: string;
  about?: string;
  domains?: string[];
  /** nb (default) or en: the pages' chrome and dates. */
  language?: PageLanguage;
  /** The person who owns it (the caller through the API; --owner through the CLI). */
  ownerId: string;
}

/**
 * create_publication: a collection with metadata.publication, owned by its owner, and its custom
 * domains, in one transaction. Custom domains only from a system administrator (403); a slug or
 * domain already taken is 409.
 */
export async function createPublication(store: PublishingStore, actor: Actor, input: NewPublication): Promise<{ id: string }> {
  // A custom domain takes over a host name for this publication: a system administrator's decision.
  if ((input.domains?.length ?? 0) > 0 && !actor.isAdmin) throw new AppError('forbidden', { detail: 'bare en systemadministrator kan legge til domener' });
  const slug = input.slug.trim().toLowerCase();
  if (!isValidSlug(slug)) throw new AppError('invalid_input', { detail: 'slug: bare a–z, 0–9 og bindestrek, 1–63 tegn' });
  const domains: string[] = [];
  for (const raw of input.domains ?? []) {
    const domain = normalizeDomain(raw);
    if (!domain) throw new AppError('invalid_input', { detail: `domains: ugyldig domenenavn ${JSON.stringify(raw.slice(0, 100))}` });
    if (!domains.includes(domain)) domains.push(domain);
  }
  return store.transaction(async (tx) => {
    if ((await tx.nodeKindOf(input.ownerId)) === undefined) throw new AppError('not_found', { detail: 'owner' });
    const id = await tx.insertPublication({ slug, title: input.title, about: input.about ?? '', domains, language: input.language ?? 'nb' }, input.ownerId);
    return { id };
  });
}
