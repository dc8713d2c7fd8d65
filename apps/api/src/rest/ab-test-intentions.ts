import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { pauseAbTest, resumeAbTest, type PublishingStore } from '@inntak/publishing';
import type { RouteRegistry } from '../route-registry.js';
import { Id, storableText } from '../schemas.js';

const TAGS = ['publishing'];

const TestRef = z.strictObject({ publication_id: Id, article_id: Id, variant_type: storableText(z.string().min(1).max(63)) });

/** Pausing and resuming a front-page test (issue 39; docs/publishing.md "Pause"). */
export function installAbTestIntentions(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { store: PublishingStore }): void {
  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/pause_ab_test',
      summary: "Pause a running A/B test: the front page shows the article's own title and nothing is counted until it is resumed",
      description: 'Owner or admin of the publication only (403 otherwise); 409 when no test of that article and variant type is running.',
      tags: TAGS,
      auth: 'jwt',
      body: TestRef,
      response: { status: 200, schema: z.object({ paused: z.literal(true), variants: z.array(Id) }) },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    ({ body, caller }) => pauseAbTest(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/resume_ab_test',
      summary: 'Resume a paused A/B test: its variants are shown and counted again, in the same round',
      description: 'Owner or admin of the publication only (403 otherwise); 409 when no test of that article and variant type is running.',
      tags: TAGS,
      auth: 'jwt',
      body: TestRef,
      response: { status: 200, schema: z.object({ paused: z.literal(false), variants: z.array(Id) }) },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    ({ body, caller }) => resumeAbTest(deps.store, caller, body),
  );
}
