import { sql, type Kysely } from 'kysely';
import { normalizeTag, TAG_NODE_KIND, TAGGED_EDGE_TYPE } from '@inntak/graph';
import type { Database } from '../platform/index.js';

/** True when the node has the tag (by the definition in docs/graph.md). */
export async function nodeHasTag(db: Kysely<Database>, nodeId: string, rawTag: string): Promise<boolean> {
  const tag = normalizeTag(rawTag);
  if (tag === null) return false;
  const { rows } = await sql<{ found: boolean }>`
    select exists (
      select 1 from edges e join nodes t on t.id = e.target_id
      where e.source_id = ${nodeId}::uuid and e.edge_type = ${TAGGED_EDGE_TYPE}
        and t.node_kind = ${TAG_NODE_KIND} and t.metadata->>'tag' = ${tag}
    ) as found`.execute(db);
  return rows[0]?.found ?? false;
}
