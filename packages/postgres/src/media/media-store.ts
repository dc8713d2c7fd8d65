import { sql, type Transaction } from 'kysely';
import { uuidv7 } from '@inntak/core';
import type { OrchestrationCascade } from '@inntak/jobs';
import { fileKeyOf, HAS_MEDIA_EDGE, MediaOwnerGoneError, MEDIA_NODE_KIND, PUBLISHED_IN_EDGE, type MediaMetadata, type MediaRecord, type MediaType, type PruneCandidate } from '@inntak/media';
import type { Database, Db } from '../platform/index.js';
import { hasAccess, insertEdge, insertNode, markOrchestrationRun } from '../graph/index.js';

/**
 * Media nodes (docs/media.md): one node per file, pointed at by its owner's `has_media` edge.
 * The media node inherits the owner's access rows through a system `belongs_to` edge media →
 * owner, so later grants and revokes on the owner reach it by the same propagation as
 * everywhere (docs/access.md).
 */

export interface NewMedia {
  /** Drawn by the caller when the file is written before the row (generateSpeech). */
  id?: string;
  ownerId: string;
  title: string | null;
  metadata: MediaMetadata;
  /**
   * The orchestration run whose generate_tts queued the job: the media node's node.created is an
   * event of that cascade (its depth + 1, its root's budget), as for the run's own writes
   * (runGraphAction), so a loop through media ends at the depth limit and the budget.
   */
  cascade?: OrchestrationCascade;
  /** Called inside the transaction just before it commits; throwing rolls everything back. */
  beforeCommit?: () => void;
}

export async function createMediaNode(db: Db, input: NewMedia): Promise<{ id: string; has_media_edge_id: string }> {
  return db.transaction().execute((trx) => insertMediaRows(trx, input));
}

/** The media node and its two system edges, inside the caller's transaction. */
export async function insertMediaRows(trx: Transaction<Database>, input: NewMedia): Promise<{ id: string; has_media_edge_id: string }> {
  const owner = await trx.selectFrom('nodes').select(['id', 'visibility']).where('id', '=', input.ownerId).forKeyShare().executeTakeFirst();
  if (!owner) throw new MediaOwnerGoneError(input.ownerId);
  if (input.cascade) await markOrchestrationRun(trx, input.cascade);
  const id = input.id ?? uuidv7();
  // The media is as visible as what it belongs to: a readable article's audio is readable.
  await insertNode(trx, { id, node_kind: MEDIA_NODE_KIND, title: input.title, visibility: owner.visibility, metadata: input.metadata, created_by: owner.id });
  const edgeId = await insertEdge(trx, { source_id: owner.id, target_id: id, edge_type: HAS_MEDIA_EDGE, system: true, created_by: owner.id });
  await insertEdge(trx, { source_id: id, target_id: owner.id, edge_type: 'belongs_to', system: true, created_by: owner.id });
  input.beforeCommit?.();
  return { id, has_media_edge_id: edgeId };
}

export { MediaOwnerGoneError };

export type { MediaRecord } from '@inntak/media';

/**
 * A media node the caller may read in full (creator, an access row, or readable/open), or
 * undefined — the file is the node's content, so a discoverable summary does not reach it.
 */
export async function readMediaFor(db: Db, callerId: string, id: string): Promise<MediaRecord | undefined> {
  const row = await db
    .selectFrom('nodes as n')
    .select(['n.id', 'n.title', 'n.metadata', 'n.created_at'])
    .where('n.id', '=', id)
    .where('n.node_kind', '=', MEDIA_NODE_KIND)
    .where((eb) => eb.or([eb('n.visibility', 'in', ['readable', 'open']), hasAccess(callerId, 'n')]))
    .executeTakeFirst();
  return row ? { ...row, metadata: row.metadata as MediaMetadata } : undefined;
}

/** A media node whoever asks (the operator, a job), or undefined. */
export async function anyMedia(db: Db, id: string): Promise<MediaRecord | undefined> {
  const row = await db.selectFrom('nodes').select(['id', 'title', 'metadata', 'created_at']).where('id', '=', id).where('node_kind', '=', MEDIA_NODE_KIND).executeTakeFirst();
  return row ? { ...row, metadata: row.metadata as MediaMetadata } : undefined;
}

/** Moves last_accessed_at to now unless it moved within the last minute; true when it did. */
export async function touchMediaAccess(db: Db, id: string, now: Date = new Date()): Promise<boolean> {
  const result = await sql`
    update nodes set metadata = jsonb_set(metadata, '{last_accessed_at}', to_jsonb(${now.toISOString()}::text))
     where id = ${id} and node_kind = ${MEDIA_NODE_KIND}
       and coalesce((metadata ->> 'last_accessed_at')::timestamptz < ${now.toISOString()}::timestamptz - interval '1 minute', true)`.execute(db);
  return Number(result.numAffectedRows ?? 0) > 0;
}

/** The media nodes a node has, newest first (bounded). */
export async function mediaOfNode(db: Db, ownerId: string, limit = 50): Promise<MediaRecord[]> {
  const rows = await db
    .selectFrom('edges as e')
    .innerJoin('nodes as n', 'n.id', 'e.target_id')
    .select(['n.id', 'n.title', 'n.metadata', 'n.created_at'])
    .where('e.source_id', '=', ownerId)
    .where('e.edge_type', '=', HAS_MEDIA_EDGE)
    .where('n.node_kind', '=', MEDIA_NODE_KIND)
    .orderBy('n.created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, metadata: row.metadata as MediaMetadata }));
}

/**
 * One page of pruning candidates in id order, after `afterId`: each media node with the facts
 * the decision needs, `published` when its owner has a `published_in` edge.
 */
export async function pruneCandidates(db: Db, afterId: string | null, limit: number): Promise<PruneCandidate[]> {
  const rows = await db
    .selectFrom('nodes as n')
    .select(['n.id', 'n.metadata', 'n.created_at'])
    .select(
      sql<boolean>`exists (select 1 from edges hm join edges p on p.source_id = hm.source_id and p.edge_type = ${PUBLISHED_IN_EDGE}
        where hm.target_id = n.id and hm.edge_type = ${HAS_MEDIA_EDGE})`.as('published'),
    )
    .where('n.node_kind', '=', MEDIA_NODE_KIND)
    .$if(afterId !== null, (q) => q.where('n.id', '>', afterId!))
    .orderBy('n.id')
    .limit(limit)
    .execute();
  return rows.map((row) => {
    const m = row.metadata as Partial<MediaMetadata>;
    const accessed = typeof m.last_accessed_at === 'string' ? new Date(m.last_accessed_at) : null;
    return {
      id: row.id,
      media_type: (m.media_type ?? 'text') as MediaType,
      bytes: typeof m.bytes === 'number' ? m.bytes : 0,
      created_at: row.created_at,
      last_accessed_at: accessed && !Number.isNaN(accessed.getTime()) ? accessed : null,
      generated: m.generated === true,
      regenerable: m.regenerable === true,
      transcribed: typeof m.transcribed === 'boolean' ? m.transcribed : null,
      published: row.published,
    };
  });
}

/** Deletes a media node (its edges and access rows go with it); its metadata, or undefined. */
export async function deleteMediaNode(db: Db, id: string): Promise<MediaMetadata | undefined> {
  const row = await db.deleteFrom('nodes').where('id', '=', id).where('node_kind', '=', MEDIA_NODE_KIND).returning('metadata').executeTakeFirst();
  return row?.metadata as MediaMetadata | undefined;
}

/** The file keys of those of these ids that are media nodes (the orphan sweep's question). */
export async function existingMediaKeys(db: Db, ids: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const rows = await db
      .selectFrom('nodes')
      .select(['id', 'metadata'])
      .where('id', 'in', ids.slice(i, i + 1000))
      .where('node_kind', '=', MEDIA_NODE_KIND)
      .execute();
    for (const row of rows) found.add(fileKeyOf(row.id, String((row.metadata as Partial<MediaMetadata>).mime)));
  }
  return found;
}

/** The media node a job made (its metadata.job_id), for `inntak tts`. */
export async function mediaOfJob(db: Db, jobId: number): Promise<MediaRecord | undefined> {
  const row = await db
    .selectFrom('nodes')
    .select(['id', 'title', 'metadata', 'created_at'])
    .where('node_kind', '=', MEDIA_NODE_KIND)
    .where(sql<boolean>`metadata ->> 'job_id' = ${String(jobId)}`)
    .executeTakeFirst();
  return row ? { ...row, metadata: row.metadata as MediaMetadata } : undefined;
}
