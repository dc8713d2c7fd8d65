import type { GraphEdge, GraphNode, Visibility } from '@inntak/graph';
import type { AccessLevel, AccessRow } from './levels.js';
import { levelGrantedBy } from './grants.js';
import { canAdminister, nodeForReader, viewOf, type ReaderRelation } from './read-rules.js';

/**
 * The audience of a change: who may see it, computed once per change from the same rules as
 * reads (read-rules.ts), inverted — instead of "may this caller see the row" it answers "which
 * callers may see it, and in which view". packages/postgres/src/read-filter.test.ts checks the
 * two directions agree.
 *
 * Glossary
 * - facts: what the audience of a node depends on — its creator, its visibility and its
 *   access-matrix rows (subject, level). Read together with the row, or carried by a delete
 *   notification because the row is gone.
 * - delivery: one version of the row and the subjects who get exactly that version. `everyone`
 *   means every authenticated client except the subjects named in the other deliveries.
 */
export interface AudienceFacts {
  created_by: string | null;
  visibility: Visibility;
  access: Array<[subject: string, level: AccessLevel]>;
}

export interface Delivery<T> {
  row: T;
  subjects: string[];
  everyone: boolean;
}

/** The relation of one subject to a node, as the read rules want it. */
export function relationOf(facts: AudienceFacts, subject: string): ReaderRelation {
  const row = facts.access.find(([s]) => s === subject);
  return { creator: facts.created_by === subject, access: row ? row[1] : null };
}

/** Subjects with a relation of their own to the node: its creator and its access rows. */
function relations(facts: AudienceFacts): Map<string, ReaderRelation> {
  const map = new Map<string, ReaderRelation>();
  if (facts.created_by) map.set(facts.created_by, relationOf(facts, facts.created_by));
  for (const [subject] of facts.access) if (!map.has(subject)) map.set(subject, relationOf(facts, subject));
  return map;
}

/**
 * A node change's deliveries: the subjects related to the node grouped by the view they get
 * (full with the webhook token, full without it, summary), then everyone else as a stranger.
 */
export function nodeDeliveries<T extends GraphNode>(node: T, facts: AudienceFacts): Delivery<T>[] {
  const groups = new Map<string, Delivery<T>>();
  for (const [subject, relation] of relations(facts)) {
    const view = viewOf(node.visibility, relation);
    if (!view) continue;
    const key = `${view}:${canAdminister(relation)}`;
    let group = groups.get(key);
    if (!group) {
      group = { row: nodeForReader(node, relation)!, subjects: [], everyone: false };
      groups.set(key, group);
    }
    group.subjects.push(subject);
  }
  const deliveries = [...groups.values()];
  const strangers = nodeForReader(node, { creator: false, access: null });
  if (strangers) deliveries.push({ row: strangers, subjects: [], everyone: true });
  return deliveries;
}

/**
 * An edge change's delivery, by the edge rule of read-filter.ts `edgeVisibleTo`:
 * - a granting edge (a row of the access matrix) to its subject and to the subjects who
 *   administer its object — never to everyone;
 * - a system edge to subjects with access to one endpoint who may see the other;
 * - any other edge to whoever may see both endpoints: everyone when neither is hidden.
 * Unknown endpoint facts (the node is gone and left no note) count as hidden with no access.
 */
export function edgeDeliveries<T extends GraphEdge>(
  edge: T,
  source: AudienceFacts | null,
  target: AudienceFacts | null,
): Delivery<T>[] {
  const sees = (facts: AudienceFacts | null, subject: string | null) =>
    facts !== null && viewOf(facts.visibility, subject === null ? STRANGER : relationOf(facts, subject)) !== null;
  const accesses = (facts: AudienceFacts | null, subject: string) => {
    if (!facts) return false;
    const relation = relationOf(facts, subject);
    return relation.creator || relation.access !== null;
  };
  let subjects: string[];
  let everyone = false;
  if (levelGrantedBy(edge.edge_type, edge.metadata)) {
    const admins = target ? [...relations(target)].filter(([, relation]) => canAdminister(relation)).map(([subject]) => subject) : [];
    subjects = [...new Set([edge.source_id, ...admins])];
  } else {
    const candidates = new Set<string>([...(source ? relations(source).keys() : []), ...(target ? relations(target).keys() : [])]);
    if (edge.system) {
      subjects = [...candidates].filter((s) => (accesses(source, s) && sees(target, s)) || (accesses(target, s) && sees(source, s)));
    } else {
      everyone = sees(source, null) && sees(target, null);
      subjects = everyone ? [] : [...candidates].filter((s) => sees(source, s) && sees(target, s));
    }
  }
  if (!everyone && subjects.length === 0) return [];
  return [{ row: edge, subjects, everyone }];
}

const STRANGER: ReaderRelation = { creator: false, access: null };

/**
 * An access row's delivery: to its subject, and to the subjects who administer its object
 * (they manage who has access). Never to everyone: the matrix is not public.
 */
export function accessDeliveries<T extends AccessRow>(row: T, object: AudienceFacts | null): Delivery<T>[] {
  const subjects = new Set<string>([row.subject_id]);
  if (object) for (const [subject, relation] of relations(object)) if (canAdminister(relation)) subjects.add(subject);
  return [{ row, subjects: [...subjects], everyone: false }];
}
