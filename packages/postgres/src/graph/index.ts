// Graph reads and writes: nodes, edges, the access matrix, read filters, search, identities.
export { PostgresIdentityDirectory } from './identity-directory.js';
export { propagateBelongsTo, refreshAccess, type AccessPair } from './access-propagation.js';
export { hasAccess, hasAccessAtLeast, nodeVisibleTo, fullViewOf, summaryViewOf, accessLevelOf, edgeVisibleTo, audienceFacts, visibleNodeParts, type VisiblePart } from './read-filter.js';
export {
  createPerson,
  createCollection,
  createNode,
  graphWrite,
  createEdge,
  deleteEdge,
  grantAccess,
  revokeAccess,
  insertNode,
  insertEdge,
  deleteEdges,
  requireEnd,
  type NewNodeInput,
  type NewEdgeInput,
} from './graph-writes.js';
export { readNode, MAX_EDGE_PAGE, type EdgePage } from './node-reads.js';
export { queryNodes, PostgresNodeQueryStore, SEARCH_TIMEOUT_MS, type QueryOptions } from './node-query.js';
export { requireLevel, levelOn } from './authorize.js';
export { readServerSecret, queryCursorKey } from './server-secrets.js';
export { tagNode, nodeHasTag } from './tags.js';
