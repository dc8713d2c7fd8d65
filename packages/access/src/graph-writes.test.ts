import { describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { createEdge, MAX_BELONGS_TO_DEPTH } from './graph-writes.js';
import { revokeAccess } from './grant-access.js';
import type { AccessLevel } from './levels.js';
import type { WriterLevel } from './level-check.js';
import type { EdgeRow, GraphStore, GraphTx, StoredEdge } from './ports.js';

// The graph's write use cases through their port, with an in-memory graph: the rules that need
// no database (packages/postgres/src/graph has the adapter's tests against a real server, and the
// write-rules and write-policy tests run these use cases over it).

class MemoryGraph implements GraphStore {
  readonly kinds = new Map<string, string>();
  readonly levels = new Map<string, AccessLevel>();
  readonly edges: StoredEdge[] = [];
  private next = 0;

  node(kind: string): string {
    const id = `n${++this.next}`;
    this.kinds.set(id, kind);
    return id;
  }
  grant(personId: string, nodeId: string, level: AccessLevel): void {
    this.levels.set(`${personId}/${nodeId}`, level);
  }
  link(edge: Omit<EdgeRow, 'created_by'>): string {
    const id = `e${++this.next}`;
    this.edges.push({ id, source_id: edge.source_id, target_id: edge.target_id, edge_type: edge.edge_type, system: false });
    return id;
  }
  transaction<T>(work: (tx: GraphTx) => Promise<T>): Promise<T> {
    return work(memoryTx(this));
  }
}

/** The port's reads and writes on the in-memory graph (the ones these use cases call). */
function memoryTx(g: MemoryGraph): GraphTx {
  const above = (id: string): number => Math.max(0, ...g.edges.filter((e) => e.edge_type === 'belongs_to' && e.source_id === id).map((e) => 1 + above(e.target_id)));
  const below = (id: string): number => Math.max(0, ...g.edges.filter((e) => e.edge_type === 'belongs_to' && e.target_id === id).map((e) => 1 + below(e.source_id)));
  const reach = (from: string, to: string): boolean => from === to || g.edges.some((e) => e.edge_type === 'belongs_to' && e.source_id === from && reach(e.target_id, to));
  const tx: Partial<GraphTx> = {
    // As the SQL does: a node without the person's row is hidden, except to an administrator or the operator.
    levelOn: async (actor, nodeId): Promise<WriterLevel | undefined> => {
      const kind = g.kinds.get(nodeId);
      const key = `${actor.personId}/${nodeId}`;
      if (kind === undefined || (actor.personId !== null && !actor.isAdmin && !g.levels.has(key))) return undefined;
      return { nodeKind: kind, level: actor.personId === null ? null : (g.levels.get(key) ?? null) };
    },
    nodeKindOf: async (nodeId) => g.kinds.get(nodeId),
    insertEdge: async (edge) => g.link(edge),
    deleteEdges: async (ids) => void g.edges.splice(0, g.edges.length, ...g.edges.filter((e) => !ids.includes(e.id))),
    lockBelongsTo: async () => {},
    reaches: async (from, to) => reach(from, to),
    chainAbove: async (id) => above(id),
    chainBelow: async (id) => below(id),
    explicitGrantEdges: async (s, o) => g.edges.filter((e) => e.source_id === s && e.target_id === o && (e.edge_type === 'owner' || e.edge_type === 'member_of')),
    ownersForUpdate: async (o) => g.edges.filter((e) => e.target_id === o && e.edge_type === 'owner').map((e) => e.source_id),
    isPublished: async (id) => g.edges.some((e) => e.source_id === id && e.edge_type === 'published_in'),
    belongsToTargets: async (id) => g.edges.filter((e) => e.source_id === id && e.edge_type === 'belongs_to').map((e) => e.target_id),
  };
  return tx as GraphTx;
}

const alice = { personId: 'alice', isAdmin: false };

describe('graph write use cases (in memory)', () => {
  it('refuses a belongs_to edge that would make a chain longer than MAX_BELONGS_TO_DEPTH (409), and writes nothing', async () => {
    const g = new MemoryGraph();
    const chain = Array.from({ length: MAX_BELONGS_TO_DEPTH + 1 }, () => g.node('collection'));
    for (const id of chain) g.grant('alice', id, 'owner');
    for (let i = 1; i < chain.length; i++) g.link({ source_id: chain[i - 1]!, target_id: chain[i]!, edge_type: 'belongs_to' });
    const top = g.node('collection');
    g.grant('alice', top, 'owner');
    const before = g.edges.length;
    const refused = await createEdge(g, alice, { source_id: chain.at(-1)!, target_id: top, edge_type: 'belongs_to' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'conflict', detail: `belongs_to ville gi en kjede på ${MAX_BELONGS_TO_DEPTH + 1} ledd; største tillatte er ${MAX_BELONGS_TO_DEPTH}` });
    expect(g.edges.length).toBe(before);
  });

  it('writes a belongs_to edge with the maker’s cap in its metadata, dropping a max_access the caller sent', async () => {
    const g = new MemoryGraph();
    const [member, collection] = [g.node('content'), g.node('collection')];
    g.grant('alice', member, 'admin');
    g.grant('alice', collection, 'member');
    const inserted: EdgeRow[] = [];
    const spy: GraphStore = { transaction: (work) => g.transaction((tx) => work({ ...tx, insertEdge: async (edge) => (inserted.push(edge), 'e') })) };
    await createEdge(spy, alice, { source_id: member, target_id: collection, edge_type: 'belongs_to', metadata: { max_access: 'owner', note: 'x' } });
    expect(inserted).toEqual([expect.objectContaining({ edge_type: 'belongs_to', metadata: { note: 'x', max_access: 'admin' }, created_by: 'alice' })]);
  });

  it('keeps the last owner: revoking the only owner edge answers 409 and removes nothing', async () => {
    const g = new MemoryGraph();
    const collection = g.node('collection');
    g.grant('alice', collection, 'owner');
    g.link({ source_id: 'alice', target_id: collection, edge_type: 'owner' });
    await expect(revokeAccess(g, alice, { subject_id: 'alice', object_id: collection })).rejects.toMatchObject({ code: 'conflict', detail: 'den siste eieren kan ikke fjernes' });
    expect(g.edges).toHaveLength(1);
  });
});
