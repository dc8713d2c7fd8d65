export * from './types.js';
export { webhookContentNode, webhookBelongsToEdge } from './content-node.js';
