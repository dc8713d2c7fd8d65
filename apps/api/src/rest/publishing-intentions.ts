import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { abResults, type AbResultsStore } from '@inntak/ab-testing';
import { abOverride, createPublication, createVariant, publishArticle, removeVariant, unpublishArticle, unpublishNode, updatePublication, updateVariant, type PublishingStore } from '@inntak/publishing';
import type { RouteRegistry } from '../route-registry.js';
import { CreatePublicationBody, CreateVariantBody, Id, UpdatePublicationBody, UpdateVariantBody } from '../schemas.js';

const TAGS = ['publishing'];

/** The intentions that make publications, publish articles and run front-page tests (docs/publishing.md). */
export function installPublishingIntentions(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { store: PublishingStore; abResults: AbResultsStore }): void {
  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_publication',
      summary: 'Create a publication (a collection with metadata.publication) owned by the caller',
      tags: TAGS,
      auth: 'jwt',
      body: CreatePublicationBody,
      description: 'Custom domains (`domains`) may only be given by a system administrator (403 otherwise).',
      response: { status: 201, schema: z.object({ id: Id }) },
      errors: [400, 401, 403, 409],
    },
    auth,
    ({ body, caller }) => createPublication(deps.store, caller, { ...body, ownerId: caller.personId }),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/update_publication',
      summary: "Change a publication's title, about or language (admin on it)",
      description: 'The slug and the custom domains stay as create_publication made them (docs/publishing.md).',
      tags: TAGS,
      auth: 'jwt',
      body: UpdatePublicationBody,
      response: { status: 200, schema: z.object({ id: Id }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => updatePublication(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/publish_article',
      summary: 'Publish a node in a publication (a published_in edge article → publication)',
      description:
        'Needs admin on the publication, admin on the node and on every collection it belongs to; collections, people, webhooks, orchestrations and cli_tools are never published (docs/access.md, Write policy).',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ publication_id: Id, node_id: Id }),
      response: { status: 201, schema: z.object({ edge_id: Id }) },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    ({ body, caller }) => publishArticle(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/unpublish_article',
      summary: 'Remove a published_in edge (admin on the publication, or admin on the node: its collections’ admins can always unpublish it)',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ edge_id: Id }),
      response: { status: 200, schema: z.object({ edge_id: Id }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => unpublishArticle(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/unpublish_node',
      summary: 'Take a node off every publication it is published in (admin on the node)',
      description:
        'Removes all of the node’s published_in edges, including those into publications the caller cannot see (whose edges they cannot name to unpublish_article). Answers how many, not where (docs/access.md, Write policy).',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ node_id: Id }),
      response: { status: 200, schema: z.object({ node_id: Id, removed: z.number().int() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => unpublishNode(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_variant',
      summary: 'Add a front-page variant of a published article; a second of its type starts an A/B test',
      tags: TAGS,
      auth: 'jwt',
      body: CreateVariantBody,
      response: { status: 201, schema: z.object({ edge_id: Id, ab_status: z.enum(['testing']).nullable() }) },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    ({ body, caller }) => createVariant(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/update_variant',
      summary: "Change a front-page variant's title or teaser (admin on the publication); a variant in a running test starts a new round",
      tags: TAGS,
      auth: 'jwt',
      body: UpdateVariantBody,
      response: { status: 200, schema: z.object({ edge_id: Id, new_round: z.boolean() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => updateVariant(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/remove_variant',
      summary: 'Remove a front-page variant (admin on the publication); a test left with one variant in play ends',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ edge_id: Id }),
      response: { status: 200, schema: z.object({ edge_id: Id }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => removeVariant(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/ab_override',
      summary: "Editor override of an A/B test: this variant wins, the others of its type are retired",
      description: 'Owner or admin of the publication only (403 otherwise).',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ edge_id: Id }),
      response: { status: 200, schema: z.object({ edge_id: Id, ab_status: z.literal('winner'), retired: z.array(Id) }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ body, caller }) => abOverride(deps.store, caller, body),
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/publications/{publication_id}/ab_results',
      summary: 'A/B test results of a publication: counts, CTR and lift with intervals, always-valid p, why undecided, decision history',
      description:
        'For members of the publication and up (403 below, 404 when the caller cannot see it). Counts are those of each test’s current round. CTR intervals are Wilson 95 %; differences and lifts carry always-valid 95 % intervals and p-values (mSPRT, docs/publishing.md).',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ publication_id: Id }),
      response: { status: 200, schema: AbResults },
      errors: [400, 401, 403, 404],
    },
    auth,
    ({ params, caller }) => abResults(deps.abResults, caller, params.publication_id),
  );
}

const Interval = z.object({ estimate: z.number(), low: z.number(), high: z.number() });

const AbResults = z.object({
  publication_id: Id,
  tests: z.array(
    z.object({
      article_id: Id,
      article_title: z.string().nullable(),
      variant_type: z.string(),
      state: z.enum(['testing', 'decided']),
      control: Id.describe('the variant lifts are measured against: the control (the article’s own title) or, in a test from before controls, the first'),
      paused: z.boolean(),
      estimate: z
        .object({ per_variant: z.number().int().nullable(), remaining: z.number().int().nullable(), days: z.number().nullable() })
        .nullable()
        .describe('while testing: impressions per variant the decision rule needs at the rates seen (80 % chance to decide by then), those still to come, days at the round’s traffic'),
      round: z.number().int(),
      round_started_at: z.string().nullable(),
      last_evaluated_at: z.string().nullable(),
      variants: z.array(
        z.object({
          edge_id: Id,
          title: z.string(),
          ab_status: z.enum(['testing', 'winner', 'retired']),
          impressions: z.number().int(),
          clicks: z.number().int(),
          ctr: Interval,
          uncounted: z
            .object({ bot: z.number().int(), prefetch: z.number().int(), address_cap: z.number().int(), repeat: z.number().int() })
            .describe(
              'impressions of the current round shown but not counted: to crawlers or clients without a User-Agent (bot), prefetches and prerenders (prefetch), clients over AB_CLIENTS_PER_ADDRESS of one IPv4 address or IPv6 /48 this window (address_cap), clients already counted for the article this window (repeat)',
            ),
        }),
      ),
      comparisons: z.array(z.object({ variant: Id, against: Id, difference: Interval, lift: Interval.nullable(), p_value: z.number() })),
      undecided: z.object({ reason: z.string(), explanation: z.string() }).nullable(),
      sample_ratio: z.object({ chi_square: z.number(), p_value: z.number() }).nullable(),
      history: z.array(
        z.object({ kind: z.string(), round: z.number().int(), edge_id: Id.nullable(), decided_by: Id.nullable(), decided_at: z.string(), detail: z.record(z.string(), z.unknown()) }),
      ),
    }),
  ),
});
