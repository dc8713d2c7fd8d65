import { sql, type Kysely } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import { edgeRule, type Actor } from '@inntak/access';
import { normalizeTag, TAG_NODE_KIND, TAGGED_EDGE_TYPE } from '@inntak/graph';
import type { Database, Db } from '../platform/index.js';
import { insertEdge, requireEnd } from './graph-writes.js';

/**
 * Tags a node (docs/graph.md): finds or creates the tag's node and links the node to it with a
 * `tagged` edge. Needs what the write policy's `tagged` rule needs on the source (`member`;
 * admin on an orchestration). Tagging twice returns the
 * existing edge. Tag nodes are `open` (a tag name is a public label) and owned by nobody.
 */
export async function tagNode(
  db: Db,
  actor: Actor,
  input: { node_id: string; tag: string },
): Promise<{ edge_id: string; tag_id: string; tag: string }> {
  const tag = normalizeTag(input.tag);
  if (tag === null) throw new AppError('invalid_input', { detail: 'tag: 1–64 tegn, uten skråstrek eller kontrolltegn' });
  return db.transaction().execute(async (trx) => {
    await requireEnd(trx, actor, input.node_id, edgeRule(TAGGED_EDGE_TYPE).create.source, 'node_id');
    // Insert-or-nothing against the unique index, then read: two writers racing both end up
    // with the one node.
    await sql`
      insert into nodes (id, node_kind, title, visibility, metadata, created_by)
      values (${uuidv7()}, ${TAG_NODE_KIND}, ${tag}, 'open', ${JSON.stringify({ tag })}::jsonb, null)
      on conflict ((metadata->>'tag')) where node_kind = 'tag' do nothing`.execute(trx);
    const tagNodeRow = await trx
      .selectFrom('nodes')
      .select('id')
      .where('node_kind', '=', TAG_NODE_KIND)
      .where(sql`metadata->>'tag'`, '=', tag)
      .executeTakeFirstOrThrow();
    const existing = await trx
      .selectFrom('edges')
      .select('id')
      .where('source_id', '=', input.node_id)
      .where('target_id', '=', tagNodeRow.id)
      .where('edge_type', '=', TAGGED_EDGE_TYPE)
      .executeTakeFirst();
    const edgeId =
      existing?.id ??
      (await insertEdge(trx, { source_id: input.node_id, target_id: tagNodeRow.id, edge_type: TAGGED_EDGE_TYPE, created_by: actor.personId }));
    return { edge_id: edgeId, tag_id: tagNodeRow.id, tag };
  });
}

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
