import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  EVENT_TYPES,
  LOG_STATUSES,
  parseScript,
  readOrchestrationLog,
  ScriptError,
  stepCount,
  ACTIONS,
  type OrchestrationStore,
} from '@inntak/orchestration';
import type { RouteRegistry } from './route-registry.js';
import { Id, Timestamp } from './schemas.js';

/**
 * Orchestration's routes (docs/orchestration.md): checking a script before it is saved, and an
 * orchestration's log. Orchestrations themselves are nodes, made with create_node (where
 * createOrchestration checks them) and observes edges.
 */
const TAGS = ['orchestration'];

const LogEntry = z.object({
  id: z.number().int(),
  job_id: z.number().int().nullable(),
  step: z.number().int().nullable().describe('1-based; for a global fallback or a stop, the step that failed; null when no step ran'),
  action: z.enum(ACTIONS).nullable(),
  fallback: z.enum(['step', 'global']).nullable(),
  status: z.enum(LOG_STATUSES),
  output: z.record(z.string(), z.unknown()).optional(),
  error: z.string().optional(),
  duration_ms: z.number().int(),
  event: z.object({ type: z.enum(EVENT_TYPES), id: Id, depth: z.number().int() }),
  at: Timestamp,
});

export function installOrchestration(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { orchestrationStore: OrchestrationStore }): void {
  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/validate_orchestration',
      summary: 'Check an orchestration script; a problem is answered with its line and column',
      description: 'With `event`, `{event.*}` variables are checked against that trigger event too.',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ script: z.string(), event: z.enum(EVENT_TYPES).optional() }),
      response: { status: 200, schema: z.object({ steps: z.number().int() }) },
      errors: [400, 401],
    },
    auth,
    async ({ body }) => {
      try {
        return { steps: stepCount(parseScript(body.script, { event: body.event })) };
      } catch (error) {
        if (error instanceof ScriptError) throw error.toAppError();
        throw error;
      }
    },
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/orchestrations/{id}/log',
      summary: "An orchestration's log, newest first: one row per step, fallback, stop and skipped event",
      description: 'For admins and owners of the orchestration, and system administrators. Keyset pagination: pass next_cursor as cursor.',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.object({
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
      }),
      response: { status: 200, schema: z.object({ entries: z.array(LogEntry), next_cursor: z.number().int().nullable() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ params, query, caller }) => readOrchestrationLog(deps.orchestrationStore, caller, params.id, { limit: query.limit, before: query.cursor }),
  );
}
