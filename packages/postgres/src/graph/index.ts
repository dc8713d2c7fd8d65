// Graph reads and writes: nodes, edges, the access matrix, read filters, search, identities.
export { PostgresIdentityDirectory } from './identity-directory.js';
export { propagateBelongsTo, refreshAccess, type AccessPair } from './access-propagation.js';
export { hasAccess, hasAccessAtLeast, nodeVisibleTo, fullViewOf, summaryViewOf, accessLevelOf, edgeVisibleTo, audienceFacts, visibleNodeParts, type VisiblePart } from './read-filter.js';
export { readNode } from './node-reads.js';
export { MAX_EDGE_PAGE, type EdgePage } from '@inntak/graph';
export { queryNodes, PostgresNodeQueryStore, SEARCH_TIMEOUT_MS, type QueryOptions } from './node-query.js';
export { levelOn, nodeKindOf } from './level-on.js';
export { readServerSecret, queryCursorKey, sharedKey, rotateServerSecret, KEY_OVERLAP_HOURS } from './server-secrets.js';
export { nodeHasTag } from './tags.js';
export { PostgresGraphStore, PostgresGraphTx, graphWrite, markOrchestrationRun, insertNode, insertEdge, deleteEdges } from './graph-store.js';
export { personOfIdentity } from './lookups.js';
export { PostgresDirectoryReads } from './directory-reads.js';
