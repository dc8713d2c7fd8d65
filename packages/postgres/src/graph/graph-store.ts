import { sql, type Kysely, type Transaction } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import { GRANTING_EDGE_TYPES, type Actor, type EdgeRow, type GraphStore, type GraphTx, type NodeRow, type StoredEdge, type WriterLevel } from '@inntak/access';
import { TAG_NODE_KIND } from '@inntak/graph';
import type { Database, Db } from '../platform/index.js';
import { pairsGrantedVia, pairsInheritedFrom, refreshAccess } from './access-propagation.js';
import { levelOn } from './level-on.js';

/**
 * The graph's write port on PostgreSQL (packages/access/src/ports.ts): the queries the graph use
 * cases run, each within the use case's transaction. Who may, and which invariants hold, is the
 * use cases' business.
 */

type Trx = Transaction<Database>;

/** Attempts of a graph write that PostgreSQL aborted as a deadlock or serialization failure. */
const WRITE_ATTEMPTS = 5;
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * One graph write's transaction. Concurrent writes to the same nodes may deadlock (each
 * insert's foreign-key check locks both endpoints, propagation then locks the objects); the
 * victim is rolled back whole, so it is simply run again. Still failing after
 * WRITE_ATTEMPTS, it answers 409 (try again), never 500.
 */
export async function graphWrite<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  // Given a transaction, the write joins it and its owner decides about retries (an
  // orchestration's action marks its transaction with the run's depth before it writes).
  if (db.isTransaction) return work(db as Trx);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
      if (attempt >= WRITE_ATTEMPTS) throw new AppError('conflict', { cause: err, detail: 'samtidige endringer; prøv igjen' });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/**
 * Marks the transaction with an orchestration run's place in its cascade (011, 017): the events
 * its writes cause are of that cascade (depth + 1, the root's budget), not new root events. An
 * action's own writes and the media of a TTS job the action queued are marked alike.
 */
export async function markOrchestrationRun(trx: Db, run: { depth: number; root: string; budget: number }): Promise<void> {
  await sql`select set_config('inntak.orchestration_depth', ${String(run.depth)}, true),
                   set_config('inntak.orchestration_root', ${run.root}, true),
                   set_config('inntak.orchestration_budget', ${String(run.budget)}, true)`.execute(trx);
}

export class PostgresGraphStore implements GraphStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: GraphTx) => Promise<T>): Promise<T> {
    return graphWrite(this.db, (trx) => work(new PostgresGraphTx(trx)));
  }
}

/**
 * The port's reads and writes on one connection: a transaction (the use cases' case), or the
 * pool for a lone read such as requireLevel outside a write.
 */
export class PostgresGraphTx implements GraphTx {
  constructor(protected readonly db: Kysely<Database>) {}

  private get trx(): Trx {
    return this.db as Trx;
  }

  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined> {
    return levelOn(this.db, actor, nodeId);
  }

  async nodeKindOf(nodeId: string, options: { forUpdate?: boolean } = {}): Promise<string | undefined> {
    const node = await this.db
      .selectFrom('nodes')
      .select('node_kind')
      .where('id', '=', nodeId)
      .$if(options.forUpdate === true, (q) => q.forUpdate())
      .executeTakeFirst();
    return node?.node_kind;
  }

  insertNode(node: NodeRow): Promise<string> {
    return insertNode(this.trx, node);
  }

  insertEdge(edge: EdgeRow): Promise<string> {
    return insertEdge(this.trx, edge);
  }

  async updateNode(nodeId: string, change: { title?: string | null; content?: string | null }): Promise<void> {
    const set = { ...(change.title !== undefined ? { title: change.title } : {}), ...(change.content !== undefined ? { content: change.content } : {}) };
    if (Object.keys(set).length > 0) await this.db.updateTable('nodes').set(set).where('id', '=', nodeId).execute();
  }

  deleteEdges(edgeIds: readonly string[]): Promise<void> {
    return deleteEdges(this.trx, edgeIds);
  }

  async insertPerson(person: { subject: string; issuer: string; name: string | null; admin: boolean }): Promise<string> {
    const id = uuidv7();
    await this.db.insertInto('nodes').values({ id, node_kind: 'person', title: person.name, content: null, metadata: '{}', created_by: null }).execute();
    await this.db.insertInto('auth_identities').values({ issuer: person.issuer, subject: person.subject, node_id: id }).execute();
    if (person.admin) await this.db.insertInto('system_admins').values({ node_id: id }).execute();
    return id;
  }

  edge(edgeId: string): Promise<StoredEdge | undefined> {
    return this.db.selectFrom('edges').select(['id', 'source_id', 'target_id', 'edge_type', 'system']).where('id', '=', edgeId).executeTakeFirst();
  }

  async edgeBetween(sourceId: string, targetId: string, edgeType: string): Promise<string | undefined> {
    const edge = await this.db
      .selectFrom('edges')
      .select('id')
      .where('source_id', '=', sourceId)
      .where('target_id', '=', targetId)
      .where('edge_type', '=', edgeType)
      .executeTakeFirst();
    return edge?.id;
  }

  async isPublished(nodeId: string): Promise<boolean> {
    const edge = await this.db.selectFrom('edges').select('id').where('source_id', '=', nodeId).where('edge_type', '=', 'published_in').executeTakeFirst();
    return edge !== undefined;
  }

  async belongsToTargets(nodeId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('edges').select('target_id').where('source_id', '=', nodeId).where('edge_type', '=', 'belongs_to').execute();
    return rows.map((r) => r.target_id);
  }

  async hasOtherObservesEdge(sourceId: string, exceptEdgeId: string): Promise<boolean> {
    const other = await this.db
      .selectFrom('edges')
      .select('id')
      .where('source_id', '=', sourceId)
      .where('edge_type', '=', 'observes')
      .where('id', '<>', exceptEdgeId)
      .executeTakeFirst();
    return other !== undefined;
  }

  async lockBelongsTo(): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtext('inntak:belongs_to'))`.execute(this.db);
  }

  async reaches(from: string, to: string): Promise<boolean> {
    if (from === to) return true;
    const { rows } = await sql<{ found: boolean }>`
      with recursive up (id) as (
        select ${from}::uuid
        union
        select e.target_id from edges e join up on e.source_id = up.id where e.edge_type = 'belongs_to'
      )
      select exists (select 1 from up where id = ${to}::uuid) as found`.execute(this.db);
    return rows[0]?.found ?? false;
  }

  async chainAbove(id: string, limit: number): Promise<number> {
    const { rows } = await sql<{ depth: number }>`
      with recursive up (id, depth) as (
        select ${id}::uuid, 0
        union
        select e.target_id, up.depth + 1 from up join edges e on e.source_id = up.id and e.edge_type = 'belongs_to'
         where up.depth <= ${limit}
      )
      select max(depth)::int as depth from up`.execute(this.db);
    return rows[0]?.depth ?? 0;
  }

  /**
   * Only nodes that have members of their own are walked (a collection's thousands of content
   * nodes are one level, not thousands of rows to follow); the last level is the +1 when `id`
   * has any member at all.
   */
  async chainBelow(id: string, limit: number): Promise<number> {
    const { rows } = await sql<{ depth: number | null; has_members: boolean }>`
      with recursive down (id, depth) as (
        select ${id}::uuid, 0
        union
        select e.source_id, down.depth + 1 from down join edges e on e.target_id = down.id and e.edge_type = 'belongs_to'
         where down.depth <= ${limit}
           and exists (select 1 from edges f where f.target_id = e.source_id and f.edge_type = 'belongs_to')
      )
      select (select max(depth)::int from down) as depth,
             exists (select 1 from edges where target_id = ${id}::uuid and edge_type = 'belongs_to') as has_members`.execute(this.db);
    const row = rows[0]!;
    return row.has_members ? (row.depth ?? 0) + 1 : 0;
  }

  explicitGrantEdges(subjectId: string, objectId: string): Promise<Array<{ id: string; edge_type: string }>> {
    return this.db
      .selectFrom('edges')
      .select(['id', 'edge_type'])
      .where('source_id', '=', subjectId)
      .where('target_id', '=', objectId)
      .where('edge_type', 'in', GRANTING_EDGE_TYPES)
      .execute();
  }

  async ownersForUpdate(objectId: string): Promise<string[]> {
    const owners = await this.db.selectFrom('edges').select('source_id').where('target_id', '=', objectId).where('edge_type', '=', 'owner').forUpdate().execute();
    return owners.map((o) => o.source_id);
  }

  async tagNodeId(tag: string): Promise<string> {
    // Insert-or-nothing against the unique index, then read: two writers racing both end up
    // with the one node.
    await sql`
      insert into nodes (id, node_kind, title, visibility, metadata, created_by)
      values (${uuidv7()}, ${TAG_NODE_KIND}, ${tag}, 'open', ${JSON.stringify({ tag })}::jsonb, null)
      on conflict ((metadata->>'tag')) where node_kind = 'tag' do nothing`.execute(this.db);
    const row = await this.db
      .selectFrom('nodes')
      .select('id')
      .where('node_kind', '=', TAG_NODE_KIND)
      .where(sql`metadata->>'tag'`, '=', tag)
      .executeTakeFirstOrThrow();
    return row.id;
  }
}

/**
 * Inserts a node with defaults the spec gives (hidden, empty metadata). Kept separate from the
 * edge so that callers decide which edges the node gets.
 */
export async function insertNode(trx: Trx, node: NodeRow): Promise<string> {
  const id = node.id ?? uuidv7();
  await trx
    .insertInto('nodes')
    .values({
      id,
      node_kind: node.node_kind,
      title: node.title ?? null,
      content: node.content ?? null,
      visibility: node.visibility ?? 'hidden',
      metadata: JSON.stringify(node.metadata ?? {}),
      created_by: node.created_by,
    })
    .execute();
  return id;
}

/** Inserts an edge and propagates what it grants (a granting edge, or belongs_to inheritance). */
export async function insertEdge(trx: Trx, edge: EdgeRow): Promise<string> {
  const id = uuidv7();
  await trx
    .insertInto('edges')
    .values({
      id,
      source_id: edge.source_id,
      target_id: edge.target_id,
      edge_type: edge.edge_type,
      metadata: JSON.stringify(edge.metadata ?? {}),
      system: edge.system ?? false,
      created_by: edge.created_by,
    })
    .execute();
  if ((GRANTING_EDGE_TYPES as readonly string[]).includes(edge.edge_type)) {
    await refreshAccess(trx, [{ subject_id: edge.source_id, object_id: edge.target_id }]);
  } else if (edge.edge_type === 'belongs_to') {
    await refreshAccess(trx, await pairsInheritedFrom(trx, edge.target_id, edge.source_id));
  }
  return id;
}

/** Deletes edges; the rows they granted go with them (cascade) and are recomputed. */
export async function deleteEdges(trx: Trx, edgeIds: readonly string[]): Promise<void> {
  if (edgeIds.length === 0) return;
  const affected = await pairsGrantedVia(trx, edgeIds);
  await trx.deleteFrom('edges').where('id', 'in', edgeIds).execute();
  await refreshAccess(trx, affected);
}
