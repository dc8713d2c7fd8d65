// Access and the graph's writes: levels and grants, identity, read rules, the write policy, and the
// graph's write use cases (createNode, createEdge, deleteEdge, grantAccess, revokeAccess, tagNode)
// over the GraphStore port (ports.ts; packages/postgres/src/graph/graph-store.ts implements it).
export { ACCESS_LEVELS, grants, isAccessLevel, type AccessLevel, type AccessRow } from './levels.js';
export { authenticate, authenticateSession, OPERATOR, type Session, type Actor, type Caller, type IdentityDirectory, type TokenVerifier } from './identity.js';
export { queryNodes } from './query-nodes.js';
export { nodeForReader, viewOf, canAdminister, FULL_VISIBILITIES, SUMMARY_VISIBILITIES, type NodeView, type ReaderRelation } from './read-rules.js';
export {
  belongsToCap,
  inheritedLevel,
  effectiveLevel,
  grantingEdge,
  levelGrantedBy,
  levelToGrant,
  meets,
  requireSystemAdmin,
  GRANTING_EDGE_TYPES,
} from './grants.js';
export {
  nodeDeliveries,
  edgeDeliveries,
  accessDeliveries,
  relationOf,
  type AudienceFacts,
  type Delivery,
} from './audience.js';
export {
  EDGE_RULES,
  NODE_KIND_RULES,
  OTHER_EDGE_TYPE,
  OTHER_NODE_KIND,
  LAST_OBSERVES_DETAIL,
  edgeRule,
  nodeKindRule,
  endNeed,
  deleteAlternatives,
  requireEdgeOperation,
  requireCreateNode,
  metadataWriteNeed,
  requirePublishable,
  requireObservable,
  writePolicyMarkdown,
  type EdgeRule,
  type EdgeEnds,
  type EndNeed,
  type NodeKindRule,
  type NodeNeed,
} from './write-policy.js';
export { type WriterLevel, type LevelReads } from './level-check.js';
export { inTransaction, type GraphStore, type GraphTx, type NodeRow, type EdgeRow, type StoredEdge, type DirectoryReads, type PersonEntry, type CollectionEntry } from './ports.js';
export { listPersons, listCollections, checkPage, nextCursor, DIRECTORY_PAGE, type DirectoryPage } from './directory.js';
export { requireLevel, requireSubject, requireEnd, requireEnds, requireAnyOf, type NodeForWrite } from './authorize.js';
export { createPerson, createCollection, createNode, createEdge, deleteEdge, MAX_BELONGS_TO_DEPTH, type NewNodeInput, type NewEdgeInput } from './graph-writes.js';
export { grantAccess, revokeAccess, keepAnOwner } from './grant-access.js';
export { tagNode } from './tag-node.js';
export { updateNode, type NodeChange } from './update-node.js';
export type {
  ChangeChannel,
  ChangeNotice,
  ChangeOp,
  Change,
  InitialSync,
  InitialSyncBounds,
  ChangeFeed,
  ChangeSubscriber,
  ChangeSubscription,
} from './change-feed.js';
