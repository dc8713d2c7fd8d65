import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { AccessLevel } from '@inntak/access';
import type { JsonObject, Visibility } from '@inntak/graph';

/** Row types of the tables in db/migrations, as kysely sees them. */
export interface NodesTable {
  id: string;
  node_kind: string;
  title: string | null;
  content: string | null;
  visibility: ColumnType<Visibility, Visibility | undefined, Visibility>;
  metadata: ColumnType<JsonObject, JsonObject | string | undefined, JsonObject | string>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface EdgesTable {
  id: string;
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata: ColumnType<JsonObject, JsonObject | string | undefined, JsonObject | string>;
  system: Generated<boolean>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface NodeAccessTable {
  subject_id: string;
  object_id: string;
  access: AccessLevel;
  via_edge: string | null;
}

export interface AuthIdentitiesTable {
  issuer: Generated<string>;
  subject: string;
  node_id: string;
  created_at: Generated<Date>;
}

export interface SystemAdminsTable {
  node_id: string;
  created_at: Generated<Date>;
}

export interface RealtimeOverflowTable {
  id: Generated<string>;
  payload: JsonObject;
  created_at: Generated<Date>;
}

/** One search document per node, kept by triggers (db/migrations/005.do.query.sql). */
export interface NodeSearchTable {
  node_id: string;
  document: string;
}

export interface Database {
  nodes: NodesTable;
  edges: EdgesTable;
  node_access: NodeAccessTable;
  auth_identities: AuthIdentitiesTable;
  system_admins: SystemAdminsTable;
  realtime_overflow: RealtimeOverflowTable;
  node_search: NodeSearchTable;
}

export type NodeRow = Selectable<NodesTable>;
export type EdgeRow = Selectable<EdgesTable>;
export type NewNodeRow = Insertable<NodesTable>;
