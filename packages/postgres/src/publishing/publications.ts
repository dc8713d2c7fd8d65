import { sql } from 'kysely';
import { AppError } from '@inntak/core';
import { pageLanguageOf, type Publication, type PublicationSettings } from '@inntak/publishing';
import type { Db, Trx } from './trx.js';
import { insertEdge, insertNode } from '../graph/index.js';

const UNIQUE_VIOLATION = '23505';

/**
 * A publication's collection node, its owner edge and its custom domains. A slug or domain
 * already taken (a unique violation) is 409.
 */
export async function insertPublication(trx: Trx, publication: PublicationSettings, ownerId: string): Promise<string> {
  try {
    const id = await insertNode(trx, { node_kind: 'collection', title: publication.title, metadata: { publication: { ...publication } }, created_by: ownerId });
    await insertEdge(trx, { source_id: ownerId, target_id: id, edge_type: 'owner', created_by: ownerId });
    for (const domain of publication.domains) {
      await sql`insert into publication_domains (domain, publication_id) values (${domain}, ${id})`.execute(trx);
    }
    return id;
  } catch (error) {
    const pgError = error as { code?: string; constraint?: string };
    if (pgError.code === UNIQUE_VIOLATION) {
      const what = pgError.constraint === 'publication_domains_pkey' ? 'domenet er allerede i bruk' : 'slug er allerede i bruk';
      throw new AppError('conflict', { detail: what, cause: error });
    }
    throw error;
  }
}

/** Locks the node's row if it is a publication (a collection with metadata.publication). */
export async function lockPublication(trx: Trx, nodeId: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    select id from nodes where id = ${nodeId} and node_kind = 'collection' and metadata ? 'publication' for update`.execute(trx);
  return rows.length > 0;
}

/** Whether the node is a publication (no lock: a read). */
export async function isPublication(db: Db, nodeId: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    select id from nodes where id = ${nodeId} and node_kind = 'collection' and metadata ? 'publication'`.execute(db);
  return rows.length > 0;
}

interface PublicationRow {
  id: string;
  publication: { slug: string; title: string; about?: string; domains?: string[]; language?: string };
}

function toPublication(row: PublicationRow): Publication {
  const p = row.publication;
  return { id: row.id, slug: p.slug, title: p.title, about: p.about ?? '', domains: p.domains ?? [], language: pageLanguageOf(p.language) };
}

/** The publication a page path names (index nodes_publication_slug_idx). */
export async function publicationBySlug(db: Db, slug: string): Promise<Publication | undefined> {
  const { rows } = await sql<PublicationRow>`
    select id, metadata -> 'publication' as publication from nodes
    where node_kind = 'collection' and metadata ? 'publication' and metadata #>> '{publication,slug}' = ${slug}`.execute(db);
  return rows[0] && toPublication(rows[0]);
}

/** The publication a request's Host names, if it is one of the custom domains. */
export async function publicationByDomain(db: Db, domain: string): Promise<Publication | undefined> {
  const { rows } = await sql<PublicationRow>`
    select n.id, n.metadata -> 'publication' as publication
    from publication_domains d join nodes n on n.id = d.publication_id
    where d.domain = ${domain}`.execute(db);
  return rows[0] && toPublication(rows[0]);
}

/** update_publication's write: metadata.publication's keys given, and the collection's title with its title. */
export async function updatePublication(trx: Trx, publicationId: string, change: { title?: string; about?: string; language?: string }): Promise<void> {
  const patch = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  await sql`update nodes set
      metadata = jsonb_set(metadata, '{publication}', (metadata -> 'publication') || ${JSON.stringify(patch)}::jsonb),
      title = coalesce(${change.title ?? null}::text, title)
    where id = ${publicationId}`.execute(trx);
}
