import { sql } from 'kysely';
import { FRONT_PAGE_VARIANT, PUBLISHED_IN } from '@inntak/publishing';
import { insertEdge } from '../graph/index.js';
import type { Trx } from './trx.js';

export { FRONT_PAGE_VARIANT, PUBLISHED_IN };

/** The targets of the node's belongs_to edges (its collections). */
export async function collectionsOf(trx: Trx, nodeId: string): Promise<string[]> {
  const rows = await trx.selectFrom('edges').select('target_id').where('source_id', '=', nodeId).where('edge_type', '=', 'belongs_to').execute();
  return rows.map((r) => r.target_id);
}

/** The ids of the node's published_in edges (into every publication, seen by the caller or not). */
export async function publishedInEdgesOf(trx: Trx, nodeId: string): Promise<string[]> {
  const rows = await trx.selectFrom('edges').select('id').where('source_id', '=', nodeId).where('edge_type', '=', PUBLISHED_IN).execute();
  return rows.map((r) => r.id);
}

/** The published_in edge node → publication; null when it is there already (the unique violation). */
export async function insertPublishedIn(trx: Trx, nodeId: string, publicationId: string, createdBy: string | null): Promise<string | null> {
  try {
    return await insertEdge(trx, { source_id: nodeId, target_id: publicationId, edge_type: PUBLISHED_IN, created_by: createdBy });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') return null;
    throw error;
  }
}

export async function nodeTitle(trx: Trx, nodeId: string): Promise<string | null> {
  const { rows } = await sql<{ title: string | null }>`select title from nodes where id = ${nodeId}`.execute(trx);
  return rows[0]?.title ?? null;
}

export async function isPublishedIn(trx: Trx, articleId: string, publicationId: string): Promise<boolean> {
  const { rows } = await sql`
    select 1 from edges where source_id = ${articleId} and target_id = ${publicationId} and edge_type = ${PUBLISHED_IN}`.execute(trx);
  return rows.length > 0;
}

/** An edge of a type by id, with its ends and metadata. */
export function edgeOfType(trx: Trx, edgeId: string, edgeType: string) {
  return trx.selectFrom('edges').select(['id', 'source_id', 'target_id', 'metadata']).where('id', '=', edgeId).where('edge_type', '=', edgeType).executeTakeFirst();
}
