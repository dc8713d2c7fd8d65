import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { edgeDeliveries, nodeDeliveries, nodeForReader, type AccessLevel, type AudienceFacts, type Delivery, createPerson } from '@inntak/access';
import { uuidv7 } from '@inntak/core';
import { VISIBILITIES, type GraphEdge, type GraphNode } from '@inntak/graph';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { accessLevelOf, audienceFacts, edgeVisibleTo, hasAccess, nodeVisibleTo } from './read-filter.js';

// The stream's audience (computed once per change, from facts) must say exactly what the read
// filter says caller by caller: every node in every relation, every edge between them.
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
const people: string[] = [];
const nodeIds: string[] = [];
const edgeIds: string[] = [];

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  for (const subject of ['a', 'b', 'c', 'd']) people.push((await createPerson(storesOn(h.db).graph, { subject })).id);
  const [a, b, c] = people as [string, string, string];
  const grants: Array<Array<[string, AccessLevel]>> = [[], [[b, 'reader']], [[b, 'admin'], [c, 'member']], [[a, 'owner']]];
  for (const visibility of VISIBILITIES) {
    for (const createdBy of [a, null]) {
      for (const access of grants) {
        const id = uuidv7();
        nodeIds.push(id);
        const metadata = JSON.stringify({ token: id });
        await h.db.insertInto('nodes').values({ id, node_kind: 'webhook', title: visibility, content: 'c', visibility, metadata, created_by: createdBy }).execute();
        for (const [subject, level] of access) await h.db.insertInto('node_access').values({ subject_id: subject, object_id: id, access: level, via_edge: null }).execute();
      }
    }
  }
  for (let i = 0; i < nodeIds.length; i += 3) {
    for (const system of [true, false]) {
      const id = uuidv7();
      edgeIds.push(id);
      const target = nodeIds[(i * 7 + 5) % nodeIds.length]!;
      await h.db.insertInto('edges').values({ id, source_id: nodeIds[i]!, target_id: target, edge_type: 'observes', metadata: '{}', system, created_by: null }).execute();
    }
  }
  // Granting edges: rows of the matrix, from each person to some of the nodes.
  for (let i = 0; i < nodeIds.length; i += 5) {
    for (const [type, metadata] of [['member_of', { access: 'admin' }], ['owner', {}]] as const) {
      const id = uuidv7();
      edgeIds.push(id);
      const subject = people[i % people.length]!;
      await h.db.insertInto('edges').values({ id, source_id: subject, target_id: nodeIds[i]!, edge_type: type, metadata: JSON.stringify(metadata), system: false, created_by: null }).execute();
    }
  }
});
afterAll(async () => {
  await h.dispose();
});

function received<T>(deliveries: Delivery<T>[], person: string): T | null {
  const own = deliveries.find((d) => d.subjects.includes(person));
  if (own) return own.row;
  return deliveries.find((d) => d.everyone)?.row ?? null;
}

describe('audience of a change', () => {
  it('gives every caller the node exactly as the read filter and read rules do', async () => {
    const rows = await h.db.selectFrom('nodes as n').selectAll('n').select(audienceFacts('n.id').as('facts')).where('n.id', 'in', nodeIds).execute();
    for (const person of people) {
      const readable = await h.db
        .selectFrom('nodes as n')
        .selectAll('n')
        .select([accessLevelOf(person, 'n').as('level'), hasAccess(person, 'n').as('has')])
        .where(nodeVisibleTo(person, 'n'))
        .where('n.id', 'in', nodeIds)
        .execute();
      const expected = new Map(
        readable.map(({ level, has: _has, ...node }) => [node.id, nodeForReader(node as GraphNode, { creator: node.created_by === person, access: level as AccessLevel | null })]),
      );
      for (const { facts, ...row } of rows) {
        const got = received(nodeDeliveries(row as GraphNode, facts as AudienceFacts), person);
        expect({ node: row.title, person, got }).toEqual({ node: row.title, person, got: expected.get(row.id) ?? null });
      }
    }
  });

  it('gives every caller the edge exactly when the read filter shows it (granting edges to subject and administrators, others only with both ends seen)', async () => {
    const rows = await h.db
      .selectFrom('edges as e')
      .selectAll('e')
      .select([audienceFacts('e.source_id').as('source'), audienceFacts('e.target_id').as('target')])
      .where('e.id', 'in', edgeIds)
      .execute();
    for (const person of people) {
      const visible = new Set(
        (await h.db.selectFrom('edges as e').select('e.id').where(edgeVisibleTo(person, 'e')).where('e.id', 'in', edgeIds).execute()).map((r) => r.id),
      );
      for (const { source, target, ...edge } of rows) {
        const got = received(edgeDeliveries(edge as GraphEdge, source as AudienceFacts, target as AudienceFacts), person) !== null;
        expect({ edge: edge.id, system: edge.system, person, got }).toEqual({ edge: edge.id, system: edge.system, person, got: visible.has(edge.id) });
      }
    }
  });
});
