export * from './types.js';
export { webhookContentNode, webhookBelongsToEdge } from './content-node.js';
export {
  encodeCursor,
  decodeCursor,
  MAX_QUERY_LIMIT,
  DEFAULT_QUERY_LIMIT,
  type NodeQuery,
  type Keyset,
  type SearchWindow,
  type QueriedNode,
  type NodeQueryPage,
  type NodeQueryStore,
  type EdgePage,
  type NodeRead,
  MAX_EDGE_PAGE,
} from './node-query.js';
export { textProblem, jsonProblem, edgeMetadataProblem, MAX_METADATA_DEPTH, MAX_EDGE_METADATA_BYTES } from './limits.js';
export { TAG_NODE_KIND, TAGGED_EDGE_TYPE, TAG_MAX_LENGTH, normalizeTag, nodeTraits } from './tags.js';
