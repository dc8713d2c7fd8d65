import { sql } from 'kysely';
import type { Db } from '../platform/index.js';

/**
 * `count` orchestrations of `personId` in their own collection `collectionId`, inserted in one
 * statement, none of which matches another person's writes (issue 22, finding 8): a third
 * observe that collection, a third wait for content (which they cannot read), a third for a tag
 * never given.
 */
export async function insertNeverMatchingOrchestrations(db: Db, personId: string, collectionId: string, count: number): Promise<void> {
  await sql`
    with made as (
      insert into nodes (id, node_kind, title, content, metadata, created_by)
      select gen_random_uuid(), 'orchestration', 'o' || i, 'steps: []',
             jsonb_build_object('trigger', jsonb_build_object('event', 'node.created', 'conditions',
               case i % 3 when 0 then '{"node_kind": "melding"}'::jsonb when 1 then '{"node_kind": "content"}'::jsonb else '{"has_tag": "aldri"}'::jsonb end)),
             ${personId}::uuid
      from generate_series(1, ${count}) i
      returning id, title
    ), belongs as (
      insert into edges (id, source_id, target_id, edge_type, created_by)
      select gen_random_uuid(), id, ${collectionId}::uuid, 'belongs_to', ${personId}::uuid from made
    )
    insert into edges (id, source_id, target_id, edge_type, created_by)
    select gen_random_uuid(), id, ${collectionId}::uuid, 'observes', ${personId}::uuid from made where substr(title, 2)::integer % 3 = 0`.execute(db);
}
