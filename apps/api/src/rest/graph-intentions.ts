import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { createCollection, createEdge, createNode, deleteEdge, grantAccess, revokeAccess, tagNode, updateNode, type GraphStore } from '@inntak/access';
import { createOrchestration, type OrchestrationLimits, type OrchestrationStore } from '@inntak/orchestration';
import type { RouteRegistry } from '../route-registry.js';
import { AccessLevel, Id, StorableJsonObject, storableText, UpdateNodeBody, Visibility } from '../schemas.js';

/**
 * The graph writes a user needs to build the graph without SQL. Each is checked against the
 * access matrix and commits together with its access propagation (docs/access.md).
 */

const EdgeType = z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'forventet et navn i snake_case');
const Title = storableText(z.string().max(1000)).nullish();
const TAGS = ['graph'];
const ERRORS = [400, 401, 403, 404];

export interface GraphIntentionsDeps {
  /** The graph's write port (packages/access/src/ports.ts). */
  graphStore: GraphStore;
  /** Orchestration's port, for create_node of an orchestration (its cap). */
  orchestrationStore: OrchestrationStore;
  /** The caps (config.ts `orchestration`, handed on by api-server.ts). */
  orchestration: OrchestrationLimits;
}

export function installGraphIntentions(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: GraphIntentionsDeps): void {
  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_collection',
      summary: 'Create a collection owned by the caller',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ title: storableText(z.string().min(1).max(1000)), visibility: Visibility.optional() }),
      response: { status: 201, schema: z.object({ id: Id }) },
      errors: [400, 401],
    },
    auth,
    ({ body, caller }) => createCollection(deps.graphStore, { title: body.title, visibility: body.visibility, ownerId: caller.personId }),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_node',
      summary: 'Create a node owned by the caller, optionally in a collection (member or better)',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({
        node_kind: storableText(z.string().min(1).max(100)),
        title: Title,
        content: storableText(z.string()).nullish(),
        visibility: Visibility.optional(),
        metadata: StorableJsonObject.optional(),
        collection_id: Id.optional(),
      }),
      response: { status: 201, schema: z.object({ id: Id, edge_ids: z.array(Id) }) },
      errors: [...ERRORS, 409],
    },
    auth,
    // An orchestration's trigger and script are checked before it is saved, and its creator's
    // orchestrations are capped (docs/orchestration.md).
    ({ body, caller }) =>
      body.node_kind === 'orchestration'
        ? createOrchestration(deps.orchestrationStore, caller, body, deps.orchestration.perPerson)
        : createNode(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/update_node',
      summary: "Change a node's title or content (the write policy's row for its kind: member for content; admin once it is published)",
      description: 'Kinds changed by their own operations (collection, webhook, orchestration, person, tag, media) answer 400 (docs/access.md, Write policy).',
      tags: TAGS,
      auth: 'jwt',
      body: UpdateNodeBody,
      response: { status: 200, schema: z.object({ id: Id }) },
      errors: ERRORS,
    },
    auth,
    ({ body, caller }) => updateNode(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_edge',
      summary: 'Create an edge; owner and member_of edges grant access, belongs_to shares the target’s access',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ source_id: Id, target_id: Id, edge_type: EdgeType, metadata: StorableJsonObject.optional() }),
      response: { status: 201, schema: z.object({ id: Id }) },
      errors: [...ERRORS, 409],
    },
    auth,
    ({ body, caller }) => createEdge(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/delete_edge',
      summary: 'Delete an edge; what it granted is recomputed from the grants that remain',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ edge_id: Id }),
      response: { status: 200, schema: z.object({ id: Id }) },
      errors: ERRORS,
    },
    auth,
    ({ body, caller }) => deleteEdge(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/grant_access',
      summary: "Set a subject's explicit access level on a node (admin; owner to grant owner)",
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ subject_id: Id, object_id: Id, access: AccessLevel }),
      response: { status: 200, schema: z.object({ edge_id: Id }) },
      errors: ERRORS,
    },
    auth,
    ({ body, caller }) => grantAccess(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/revoke_access',
      summary: "Remove a subject's explicit grants on a node; inherited access stays",
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ subject_id: Id, object_id: Id }),
      response: { status: 200, schema: z.object({ removed: z.number().int() }) },
      errors: ERRORS,
    },
    auth,
    ({ body, caller }) => revokeAccess(deps.graphStore, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/tag_node',
      summary: 'Tag a node (member or better on it): a tagged edge to the tag’s node, made on first use',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ node_id: Id, tag: z.string().min(1).max(200) }),
      response: { status: 201, schema: z.object({ edge_id: Id, tag_id: Id, tag: z.string() }) },
      errors: ERRORS,
    },
    auth,
    ({ body, caller }) => tagNode(deps.graphStore, caller, body),
  );
}
