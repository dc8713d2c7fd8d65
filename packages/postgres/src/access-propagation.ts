import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * The access-propagation step for a `belongs_to` edge: the edge's source gets every access row
 * its target has, each recorded as granted via this edge. Idempotent, so a queued repair may
 * run it again; a stronger existing row is kept.
 */
export async function propagateBelongsTo(db: Kysely<Database>, edgeId: string): Promise<number> {
  const result = await sql`
    insert into node_access (subject_id, object_id, access, via_edge)
    select a.subject_id, e.source_id, a.access, e.id
      from edges e
      join node_access a on a.object_id = e.target_id
     where e.id = ${edgeId} and e.edge_type = 'belongs_to' and a.subject_id <> e.source_id
    on conflict (subject_id, object_id) do update
       set access = excluded.access, via_edge = excluded.via_edge
     where node_access.access < excluded.access`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
