import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  deleteOrchestration,
  EVENT_TYPES,
  addCollectionOrchestration,
  listOrchestrationRuns,
  readOrchestration,
  rerunOrchestration,
  runOrchestration,
  setOrchestrationEnabled,
  setOrchestrationSecret,
  updateOrchestration,
  type OrchestrationLimits,
  type OrchestrationStore,
} from '@inntak/orchestration';
import type { RouteRegistry } from '../route-registry.js';
import { Id, StorableJsonObject, storableText, Timestamp } from '../schemas.js';

/**
 * Managing orchestrations (issue 27, docs/orchestration.md "Managing an orchestration"): change,
 * turn off and on, delete, run by hand, re-run, secrets, and the runs list. Every one takes admin
 * on the orchestration (404 for a caller who may not see it, 403 for one who may but is no admin).
 */
const TAGS = ['orchestration'];
const ERRORS = [400, 401, 403, 404] as const;
const RunStarted = z.object({ run_id: Id, job_id: z.number().int() });

const Run = z.object({
  id: Id,
  job_id: z.number().int().nullable(),
  status: z.enum(['queued', 'running', 'completed', 'filtered', 'stopped', 'failed', 'skipped']),
  event: z.object({
    type: z.enum(EVENT_TYPES),
    id: Id,
    depth: z.number().int(),
    changes: z.array(z.string()).optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    scheduled_at: z.string().optional(),
  }),
  failed_step: z.number().int().nullable(),
  rerun_of: Id.nullable(),
  from_step: z.number().int(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
  attempts: z
    .array(z.object({ step: z.number().int(), attempt: z.number().int(), index: z.number().int().optional(), error: z.string(), at: z.string(), job_id: z.number().int() }))
    .describe("each failed attempt of a step with retry that was tried again, oldest first (its job ended well, so only the run keeps why); at most the newest 50"),
  lost_workers: z.number().int().describe('times its job died with its worker and the run was taken up again'),
});

export function installOrchestrationManage(
  app: Express,
  registry: RouteRegistry,
  auth: RequestHandler,
  deps: { orchestrationStore: OrchestrationStore; orchestration: OrchestrationLimits },
): void {
  const store = deps.orchestrationStore;

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/update_orchestration',
      summary: "Change an orchestration's script, trigger or title, checked first (400 with line and column); it then runs as the caller",
      description:
        'Admin on the orchestration. A new trigger also takes admin on every node it observes. An admin who is not its creator becomes the one it acts as (within ORCHESTRATIONS_PER_PERSON, else 409).',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({
        id: Id,
        script: storableText(z.string()).optional(),
        trigger: StorableJsonObject.optional(),
        title: storableText(z.string().max(1000)).optional(),
      }),
      response: { status: 200, schema: z.object({ id: Id, steps: z.number().int(), runs_as: Id.nullable() }) },
      errors: [...ERRORS, 409],
    },
    auth,
    ({ body, caller }) =>
      updateOrchestration(store, caller, body.id, body, deps.orchestration.perPerson),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/set_orchestration_enabled',
      summary: 'Turn an orchestration off (it matches nothing, is not scheduled, queued runs are skipped) or on again',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ id: Id, enabled: z.boolean() }),
      response: { status: 200, schema: z.object({ id: Id, enabled: z.boolean() }) },
      errors: [...ERRORS],
    },
    auth,
    ({ body, caller }) => setOrchestrationEnabled(store, caller, body.id, body.enabled),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/delete_orchestration',
      summary: 'Delete an orchestration with its edges, log, runs, schedule and secrets',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ id: Id }),
      response: { status: 200, schema: z.object({ id: Id, deleted: z.literal(true) }) },
      errors: [...ERRORS],
    },
    auth,
    ({ body, caller }) => deleteOrchestration(store, caller, body.id),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/run_orchestration',
      summary: 'Run a manual orchestration now, with {event.input.*} from input (at most 16 KB as JSON)',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ id: Id, input: StorableJsonObject.default({}) }),
      response: { status: 202, schema: RunStarted },
      errors: [...ERRORS, 409, 429],
    },
    auth,
    ({ body, caller }) => runOrchestration(store, caller, body.id, body.input, deps.orchestration.runsPerPerson),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/rerun_orchestration',
      summary: 'Run a stopped run again from the step that failed, with the same event and the earlier steps’ outputs; or, with from=start, any ended run again from step 1 with the same event or input',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ run_id: Id, from: z.enum(['failed_step', 'start']).default('failed_step') }),
      response: { status: 202, schema: RunStarted },
      errors: [...ERRORS, 409, 429],
    },
    auth,
    ({ body, caller }) => rerunOrchestration(store, caller, body.run_id, deps.orchestration.runsPerPerson, body.from),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/set_orchestration_secret',
      summary: 'Set a secret for http_post headers ({secrets.NAME}); stored apart from the script and never answered back. Only the one it runs as (403 otherwise: take it over with update_orchestration first)',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ id: Id, name: z.string().min(1).max(64), value: storableText(z.string().min(1).max(4000)) }),
      response: { status: 200, schema: z.object({ id: Id, name: z.string() }) },
      errors: [...ERRORS],
    },
    auth,
    ({ body, caller }) => setOrchestrationSecret(store, caller, body.id, body.name, body.value),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_collection_orchestration',
      summary: 'Create an orchestration in a collection that observes it, as the caller: node, belongs_to and observes edge in one transaction',
      description:
        'The trigger (event, conditions, where, cron) and script are checked first (400 with line and column). Member in the collection (create_node) and the observes edge’s row of the write policy; within ORCHESTRATIONS_PER_PERSON (409).',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({
        collection_id: Id,
        title: storableText(z.string().min(1).max(1000)).optional(),
        event: z.enum(EVENT_TYPES),
        conditions: StorableJsonObject.optional(),
        where: StorableJsonObject.optional(),
        cron: z.string().max(200).optional(),
        script: storableText(z.string()),
      }),
      response: { status: 201, schema: z.object({ id: Id, observes_edge_id: Id, steps: z.number().int() }) },
      errors: [...ERRORS, 409],
    },
    auth,
    async ({ body, caller }) => {
      const made = await addCollectionOrchestration(store, body, deps.orchestration.perPerson, caller);
      return { id: made.id, observes_edge_id: made.observes_edge_id, steps: made.steps };
    },
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/orchestrations/{id}',
      summary: "An orchestration as its administrators edit it: title, script, trigger, whether it is on, whom it runs as",
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      response: {
        status: 200,
        schema: z.object({ id: Id, title: z.string().nullable(), script: z.string(), trigger: z.record(z.string(), z.unknown()).nullable(), enabled: z.boolean(), runs_as: Id.nullable() }),
      },
      errors: [...ERRORS],
    },
    auth,
    async ({ params, caller }) => {
      const found = await readOrchestration(store, caller, params.id);
      return { ...found, trigger: found.trigger as Record<string, unknown> | null };
    },
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/orchestrations/{id}/runs',
      summary: "An orchestration's runs, newest first, with status and duration",
      description: 'For admins and owners of the orchestration, and system administrators. Keyset pagination: pass next_cursor as cursor.',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(50), cursor: Id.optional() }),
      response: { status: 200, schema: z.object({ runs: z.array(Run), next_cursor: Id.nullable() }) },
      errors: [...ERRORS],
    },
    auth,
    ({ params, query, caller }) => listOrchestrationRuns(store, caller, params.id, { limit: query.limit, before: query.cursor }),
  );
}
