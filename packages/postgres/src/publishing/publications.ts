import { sql, type Transaction } from 'kysely';
import { AppError } from '@inntak/core';
import type { Actor, EndNeed } from '@inntak/access';
import { isValidSlug, normalizeDomain, type Publication } from '@inntak/publishing';
import type { Database, Db } from '../platform/index.js';
import { insertEdge, insertNode, requireLevel } from '../graph/index.js';

type Trx = Transaction<Database>;

const UNIQUE_VIOLATION = '23505';

export interface NewPublication {
  title: string;
  slug: string;
  about?: string;
  domains?: string[];
  /** The person who owns it (the caller through the API; --owner through the CLI). */
  ownerId: string;
}

/**
 * A publication: a collection with metadata.publication, owned by its owner, and its custom
 * domains, in one transaction. A slug or domain already taken is 409.
 */
export async function createPublication(db: Db, input: NewPublication): Promise<{ id: string }> {
  const slug = input.slug.trim().toLowerCase();
  if (!isValidSlug(slug)) throw new AppError('invalid_input', { detail: 'slug: bare a–z, 0–9 og bindestrek, 1–63 tegn' });
  const domains: string[] = [];
  for (const raw of input.domains ?? []) {
    const domain = normalizeDomain(raw);
    if (!domain) throw new AppError('invalid_input', { detail: `domains: ugyldig domenenavn ${JSON.stringify(raw.slice(0, 100))}` });
    if (!domains.includes(domain)) domains.push(domain);
  }
  const publication = { slug, title: input.title, about: input.about ?? '', domains };
  try {
    return await db.transaction().execute(async (trx) => {
      const owner = await trx.selectFrom('nodes').select('id').where('id', '=', input.ownerId).executeTakeFirst();
      if (!owner) throw new AppError('not_found', { detail: 'owner' });
      const id = await insertNode(trx, { node_kind: 'collection', title: input.title, metadata: { publication }, created_by: input.ownerId });
      await insertEdge(trx, { source_id: input.ownerId, target_id: id, edge_type: 'owner', created_by: input.ownerId });
      for (const domain of domains) {
        await sql`insert into publication_domains (domain, publication_id) values (${domain}, ${id})`.execute(trx);
      }
      return { id };
    });
  } catch (error) {
    const pgError = error as { code?: string; constraint?: string; detail?: string };
    if (pgError.code === UNIQUE_VIOLATION) {
      const what = pgError.constraint === 'publication_domains_pkey' ? 'domenet er allerede i bruk' : 'slug er allerede i bruk';
      throw new AppError('conflict', { detail: what, cause: error });
    }
    throw error;
  }
}

interface PublicationRow {
  id: string;
  publication: { slug: string; title: string; about?: string; domains?: string[] };
}

function toPublication(row: PublicationRow): Publication {
  const p = row.publication;
  return { id: row.id, slug: p.slug, title: p.title, about: p.about ?? '', domains: p.domains ?? [] };
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

/**
 * A publication a caller wants to change: through the access matrix (404 when they may not see
 * it, 403 without `level`, the write policy's need on it), and a collection that is a
 * publication (else 400). Locks its row so the variant transitions of one publication happen one
 * at a time.
 */
export async function requirePublication(trx: Trx, actor: Actor, publicationId: string, field: string, level: EndNeed = 'admin'): Promise<void> {
  await requireLevel(trx, actor, publicationId, level === 'exists' ? null : level, field);
  const { rows } = await sql<{ id: string }>`
    select id from nodes where id = ${publicationId} and node_kind = 'collection' and metadata ? 'publication' for update`.execute(trx);
  if (rows.length === 0) throw new AppError('invalid_input', { detail: `${field}: er ikke en publikasjon` });
}
