import { sql } from 'kysely';
import type { Db } from '../platform/index.js';

// The queries behind speech queueing (packages/media, speech-queue.ts) and generation.

/** Serialises speech queueing of one person until the transaction ends. */
export async function lockSpeechQueueOf(db: Db, personId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`inntak.tts:${personId}`}, 0))`.execute(db);
}

/** The person's tts_generate jobs queued or running. */
export async function speechJobsOf(db: Db, personId: string): Promise<number> {
  const { n } = await db
    .selectFrom('job_queue')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('job_type', '=', 'tts_generate')
    .where('status', 'in', ['queued', 'running'])
    .where(sql<boolean>`payload ->> 'requested_by' = ${personId}`)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Serialises quota checks on the node's scopes (itself and the collections it belongs to
 * directly, the scopes collectionMediaBytes sums) until the transaction ends: two uploads into one
 * collection at once each read the bytes before the other's insert, and both passed
 * MEDIA_BYTES_PER_COLLECTION. Taken in id order, so two writers never wait on each other in turn.
 */
export async function lockMediaQuotaOf(db: Db, nodeId: string): Promise<void> {
  await sql`
    select pg_advisory_xact_lock(hashtextextended('inntak.media-quota:' || s.id::text, 0))
      from (
        select ${nodeId}::uuid as id
        union
        select e.target_id from edges e join nodes c on c.id = e.target_id and c.node_kind = 'collection'
         where e.source_id = ${nodeId}::uuid and e.edge_type = 'belongs_to'
      ) s
     order by s.id`.execute(db);
}

/**
 * Bytes of media in the node's fullest scope: each collection it belongs to directly (the media
 * of the collection's nodes and of the collection itself), and the node itself, which covers a
 * node in no collection. A media node's size is its metadata.bytes (the service writes it).
 */
export async function collectionMediaBytes(db: Db, nodeId: string): Promise<number> {
  const { rows } = await sql<{ bytes: string | null }>`
    with scopes as (
      select ${nodeId}::uuid as id
      union
      select e.target_id from edges e join nodes c on c.id = e.target_id and c.node_kind = 'collection'
       where e.source_id = ${nodeId}::uuid and e.edge_type = 'belongs_to'
    ), owners as (
      select s.id as scope, s.id as owner from scopes s
      union all
      select s.id, b.source_id from scopes s join edges b on b.target_id = s.id and b.edge_type = 'belongs_to'
    )
    select max(total)::text as bytes from (
      select o.scope, coalesce(sum(case when jsonb_typeof(m.metadata -> 'bytes') = 'number' then (m.metadata ->> 'bytes')::numeric else 0 end), 0) as total
        from owners o
        left join edges h on h.source_id = o.owner and h.edge_type = 'has_media'
        left join nodes m on m.id = h.target_id and m.node_kind = 'media'
       group by o.scope
    ) per_scope`.execute(db);
  return Number(rows[0]?.bytes ?? 0);
}

/**
 * Bytes of the media `personId` uploaded (metadata.uploaded_by, written by POST /media), under a
 * lock on the person held to the end of the transaction: their parallel uploads check one at a
 * time (MEDIA_UPLOAD_BYTES_PER_PERSON; found attacking the merged result of issue 35).
 */
export async function personUploadBytes(db: Db, personId: string): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended('inntak.media-uploads:' || ${personId}::text, 0))`.execute(db);
  const { rows } = await sql<{ bytes: string | null }>`
    select coalesce(sum(case when jsonb_typeof(metadata -> 'bytes') = 'number' then (metadata ->> 'bytes')::numeric else 0 end), 0)::text as bytes
      from nodes where node_kind = 'media' and metadata ->> 'uploaded_by' = ${personId}::text`.execute(db);
  return Number(rows[0]?.bytes ?? 0);
}
