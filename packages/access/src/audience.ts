import type { GraphEdge, GraphNode, Visibility } from '@inntak/graph';
import type { AccessLevel, AccessRow } from './levels.js';
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
 * An edge change's delivery: a system edge to the subjects with access to an endpoint; an
 * ordinary edge to those who may see an endpoint (everyone, when an endpoint is not hidden).
 * Unknown endpoint facts (the node is gone and left no note) count as hidden with no access.
 */
export function edgeDeliveries<T extends GraphEdge>(
  edge: T,
  source: AudienceFacts | null,
  target: AudienceFacts | null,
): Delivery<T>[] {
  const endpoints = [source, target].filter((f): f is AudienceFacts => f !== null);
  const subjects = new Set<string>();
  for (const facts of endpoints) for (const subject of relations(facts).keys()) subjects.add(subject);
  const everyone = !edge.system && endpoints.some((f) => viewOf(f.visibility, { creator: false, access: null }) !== null);
  if (!everyone && subjects.size === 0) return [];
  return [{ row: edge, subjects: everyone ? [] : [...subjects], everyone }];
}

/**
 * An access row's delivery: to its subject, and to the subjects who administer its object
 * (they manage who has access). Never to everyone: the matrix is not public.
 */
export function accessDeliveries<T extends AccessRow>(row: T, object: AudienceFacts | null): Delivery<T>[] {
  const subjects = new Set<string>([row.subject_id]);
  if (object) for (const [subject, relation] of relations(object)) if (canAdminister(relation)) subjects.add(subject);
  return [{ row, subjects: [...subjects], everyone: false }];
}
