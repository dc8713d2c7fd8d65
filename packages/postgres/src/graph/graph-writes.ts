import * as graph from '@inntak/access';
import type { AccessLevel, Actor, NewEdgeInput, NewNodeInput } from '@inntak/access';
import type { Visibility } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { PostgresGraphStore } from './graph-store.js';

/**
 * The graph use cases (packages/access: graph-writes.ts, grant-access.ts, tag-node.ts,
 * authorize.ts) over this adapter, for the callers that hold a database handle (publishing,
 * media, the CLI, tests). Given a transaction, each joins it.
 */

export { MAX_BELONGS_TO_DEPTH, type NewNodeInput, type NewEdgeInput } from '@inntak/access';

export function createPerson(db: Db, input: { subject: string; issuer?: string; name?: string; admin?: boolean }): Promise<{ id: string }> {
  return graph.createPerson(new PostgresGraphStore(db), input);
}

export function createCollection(db: Db, input: { title: string; ownerId: string; visibility?: Visibility }): Promise<{ id: string }> {
  return graph.createCollection(new PostgresGraphStore(db), input);
}

export function createNode(db: Db, actor: Actor & { personId: string }, input: NewNodeInput, via: 'api' | 'orchestration' = 'api'): Promise<{ id: string; edge_ids: string[] }> {
  return graph.createNode(new PostgresGraphStore(db), actor, input, via);
}

export function createEdge(db: Db, actor: Actor, input: NewEdgeInput): Promise<{ id: string }> {
  return graph.createEdge(new PostgresGraphStore(db), actor, input);
}

export function deleteEdge(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ id: string }> {
  return graph.deleteEdge(new PostgresGraphStore(db), actor, input);
}

export function grantAccess(db: Db, actor: Actor, input: { subject_id: string; object_id: string; access: AccessLevel }): Promise<{ edge_id: string }> {
  return graph.grantAccess(new PostgresGraphStore(db), actor, input);
}

export function revokeAccess(db: Db, actor: Actor, input: { subject_id: string; object_id: string }): Promise<{ removed: number }> {
  return graph.revokeAccess(new PostgresGraphStore(db), actor, input);
}

export function tagNode(db: Db, actor: Actor, input: { node_id: string; tag: string }): Promise<{ edge_id: string; tag_id: string; tag: string }> {
  return graph.tagNode(new PostgresGraphStore(db), actor, input);
}

