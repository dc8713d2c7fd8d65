import { sql, type Transaction } from 'kysely';
import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { Database, Db } from '../platform/index.js';
import { deleteEdges, hasAccess, insertEdge, nodeVisibleTo } from '../graph/index.js';
import { requirePublication } from './publications.js';

type Trx = Transaction<Database>;

/** The publishing edge (article → publication) that storage pruning honours: keep name and direction. */
export const PUBLISHED_IN = 'published_in';
/** A front-page variant: publication → article. */
export const FRONT_PAGE_VARIANT = 'front_page_variant';

/** Kinds that are containers or people, never articles. */
const NOT_ARTICLES = ['collection', 'person', 'webhook'];

/**
 * Publishes a node in a publication: admin on the publication, and the whole node readable to
 * the caller (a discoverable summary is not enough: publishing shows the content to everyone).
 */
export async function publishArticle(db: Db, actor: Actor, input: { publication_id: string; node_id: string }): Promise<{ edge_id: string }> {
  try {
    return await db.transaction().execute(async (trx) => {
      await requirePublication(trx, actor, input.publication_id, 'publication_id');
      await requireReadable(trx, actor, input.node_id, 'node_id');
      const edgeId = await insertEdge(trx, {
        source_id: input.node_id,
        target_id: input.publication_id,
        edge_type: PUBLISHED_IN,
        created_by: actor.personId,
      });
      return { edge_id: edgeId };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AppError('conflict', { detail: 'artikkelen er allerede publisert i publikasjonen', cause: error });
    }
    throw error;
  }
}

/** Removes a published_in edge: admin on its publication. The article's variants stay (they show again if it is republished). */
export async function unpublishArticle(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string }> {
  return db.transaction().execute(async (trx) => {
    const edge = await trx.selectFrom('edges').select(['id', 'target_id']).where('id', '=', input.edge_id).where('edge_type', '=', PUBLISHED_IN).executeTakeFirst();
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requirePublication(trx, actor, edge.target_id, 'edge_id');
    await deleteEdges(trx, [edge.id]);
    return { edge_id: edge.id };
  });
}

/** 404 when the caller may not see the node, 403 when they see only its summary, 400 for a kind that is no article. */
async function requireReadable(trx: Trx, actor: Actor, nodeId: string, field: string): Promise<void> {
  const callerId = actor.personId;
  const admin = actor.isAdmin || callerId === null;
  const { rows } = await sql<{ node_kind: string; visible: boolean; readable: boolean }>`
    select n.node_kind,
      ${admin ? sql`true` : nodeVisibleTo(callerId, 'n')} as visible,
      ${admin ? sql`true` : sql`(n.visibility in ('readable', 'open') or ${hasAccess(callerId, 'n')})`} as readable
    from nodes n where n.id = ${nodeId}`.execute(trx);
  const node = rows[0];
  if (!node || !node.visible) throw new AppError('not_found', { detail: field });
  if (!node.readable) throw new AppError('forbidden');
  if (NOT_ARTICLES.includes(node.node_kind)) throw new AppError('invalid_input', { detail: `${field}: en ${node.node_kind} kan ikke publiseres` });
}

