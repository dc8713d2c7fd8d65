import { AppError, isUuid } from '@inntak/core';
import { requireSystemAdmin } from './grants.js';
import type { Actor } from './identity.js';
import type { CollectionEntry, DirectoryReads, PersonEntry } from './ports.js';

/**
 * The directory: the persons and the collections, one bounded page at a time in the order they
 * were made (keyset on the id, a UUIDv7; `next_cursor` is the last id of a full page). Who sees
 * what: the persons, with their login identities, only a system administrator (the operator at
 * a shell is one); the collections, what the read filter lets the actor see, all of them for a
 * system administrator.
 *
 * `checkPage` and `nextCursor` are the keyset paging of every such list (the webhooks the actor
 * administers too, packages/intake webhook-admin.ts): one limit, one cursor, one error text.
 */
export const DIRECTORY_PAGE = { default: 50, max: 200 } as const;

export interface DirectoryPage {
  limit: number;
  /** The previous page's `next_cursor`. */
  cursor?: string;
}

export async function listPersons(reads: DirectoryReads, actor: Actor, page: DirectoryPage): Promise<{ persons: PersonEntry[]; next_cursor: string | null }> {
  requireSystemAdmin(actor);
  const { limit, after } = checkPage(page);
  const rows = await reads.persons({ limit: limit + 1, after });
  return { persons: rows.slice(0, limit), next_cursor: nextCursor(rows, limit) };
}

export async function listCollections(reads: DirectoryReads, actor: Actor, page: DirectoryPage): Promise<{ collections: CollectionEntry[]; next_cursor: string | null }> {
  const { limit, after } = checkPage(page);
  if (!actor.isAdmin && actor.personId === null) return { collections: [], next_cursor: null };
  const rows = await reads.collections(actor.isAdmin ? null : actor.personId, { limit: limit + 1, after });
  return { collections: rows.slice(0, limit), next_cursor: nextCursor(rows, limit) };
}

/** The page asked for, checked: `limit` a whole number from 1 to `DIRECTORY_PAGE.max`, `cursor` a UUID; else 400 naming the field. */
export function checkPage(page: DirectoryPage): { limit: number; after: string | undefined } {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > DIRECTORY_PAGE.max) {
    throw new AppError('invalid_input', { detail: `limit: må være et helt tall fra 1 til ${DIRECTORY_PAGE.max}` });
  }
  if (page.cursor !== undefined && !isUuid(page.cursor)) throw new AppError('invalid_input', { detail: 'cursor: forventet UUID' });
  return { limit: page.limit, after: page.cursor };
}

/** One row past the page was read: there is a next page, which starts after the page's last id. */
export function nextCursor(rows: readonly { id: string }[], limit: number): string | null {
  return rows.length > limit ? rows[limit - 1]!.id : null;
}
