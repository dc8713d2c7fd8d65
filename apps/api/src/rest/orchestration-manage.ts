import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  deleteOrchestration,
  EVENT_TYPES,
  listOrchestrationRuns,
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
      summary: 'Run a stopped run again from the step that failed, with the same event and the earlier steps’ outputs',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ run_id: Id }),
      response: { status: 202, schema: RunStarted },
      errors: [...ERRORS, 409, 429],
    },
    auth,
    ({ body, caller }) => rerunOrchestration(store, caller, body.run_id, deps.orchestration.runsPerPerson),
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
