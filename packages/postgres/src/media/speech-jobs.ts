import { sql } from 'kysely';
import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { JobPayloads } from '@inntak/jobs';
import { DEFAULT_RATE, speechRefusal, speechTextOf, type SpeechLimits } from '@inntak/media';
import type { Db } from '../platform/index.js';
import { requireLevel } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';

export interface SpeechQueueLimits extends SpeechLimits {
  /** tts_generate jobs one person may have queued or running at once. */
  jobsPerPerson: number;
}

/**
 * `POST /intentions/generate_tts` (docs/media.md, issue 22): the speech becomes part of the node
 * (its media), so it takes member on the node, like the orchestration action; and it is refused
 * in advance when the text, the estimated audio, the person's queued jobs or the collection's
 * media would pass their limit. The count and the enqueue happen under a per-person lock, so
 * parallel requests cannot all slip under the job limit.
 */
export async function queueSpeech(
  db: Db,
  actor: Actor & { personId: string },
  request: { node_id: string; voice?: string; rate?: number },
  limits: SpeechQueueLimits,
  options: { maxAttempts: number },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await requireLevel(trx, actor, request.node_id, 'member', 'node_id');
    const node = await trx.selectFrom('nodes').select(['id', 'title', 'content']).where('id', '=', request.node_id).executeTakeFirstOrThrow();
    const chars = speechTextOf(node).length;
    const refusal = speechRefusal(limits, chars, request.rate ?? DEFAULT_RATE, await collectionMediaBytes(trx, request.node_id));
    if (refusal?.limit === 'text') throw new AppError('tts_text_too_long', { detail: `${refusal.chars} tegn; høyst ${refusal.max}` });
    if (refusal?.limit === 'audio') throw new AppError('tts_audio_too_long', { detail: `om lag ${refusal.seconds} s; høyst ${refusal.max} s` });
    if (refusal?.limit === 'collection_bytes') throw new AppError('media_quota_exceeded', { detail: `${refusal.bytes} byte; høyst ${refusal.max}` });
    await requireSpeechRoom(trx, actor.personId, limits.jobsPerPerson);
    const payload: JobPayloads['tts_generate'] = {
      node_id: request.node_id,
      ...(request.voice ? { voice: request.voice } : {}),
      ...(request.rate ? { rate: request.rate } : {}),
      requested_by: actor.personId,
    };
    return enqueueJob(trx, 'tts_generate', payload, { maxAttempts: options.maxAttempts });
  });
}

/**
 * Refuses (tts_jobs_busy) a person who has `jobsPerPerson` tts_generate jobs queued or running
 * already, whether they asked through the API or their orchestration's generate_tts did (second
 * attack on issue 22). Takes a per-person lock held to the end of the transaction, which must
 * then queue the job with `requested_by` = the person, so parallel requests cannot all slip under.
 */
export async function requireSpeechRoom(trx: Db, personId: string, jobsPerPerson: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`inntak.tts:${personId}`}, 0))`.execute(trx);
  const { n } = await trx
    .selectFrom('job_queue')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('job_type', '=', 'tts_generate')
    .where('status', 'in', ['queued', 'running'])
    .where(sql<boolean>`payload ->> 'requested_by' = ${personId}`)
    .executeTakeFirstOrThrow();
  if (Number(n) >= jobsPerPerson) throw new AppError('tts_jobs_busy', { detail: `høyst ${jobsPerPerson} om gangen` });
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
