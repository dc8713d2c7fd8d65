/**
 * Glossary
 * - node: anything in the graph (a person, a collection, a webhook, a piece of content, ...).
 * - edge: a typed, directed link between two nodes. A `system` edge is made by the service
 *   itself (e.g. intake's belongs_to) and is hidden from callers who may see neither endpoint.
 * - collection: a node that other nodes belong to; its access rows flow to its members.
 * - webhook: a node of kind `webhook` whose metadata holds the secret intake token and,
 *   optionally, the template that renders what is posted to it.
 */

export const VISIBILITIES = ['hidden', 'discoverable', 'readable', 'open'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export const NODE_KINDS = [
  'webhook',
  'content',
  'communication',
  'cli_tool',
  'orchestration',
  'collection',
  'person',
  'media',
  'melding',
  'tag',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

export const EDGE_TYPES = ['belongs_to', 'member_of', 'owner', 'host_of', 'has_media', 'observes', 'tagged'] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

export type JsonObject = { [key: string]: unknown };

export interface GraphNode {
  id: string;
  node_kind: string;
  title: string | null;
  content: string | null;
  visibility: Visibility;
  metadata: JsonObject;
  created_by: string | null;
  created_at: Date;
}

export interface GraphEdge {
  id: string;
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata: JsonObject;
  system: boolean;
  created_by: string | null;
  created_at: Date;
}

export type NewNode = Omit<GraphNode, 'created_at'>;
export type NewEdge = Omit<GraphEdge, 'created_at'>;
