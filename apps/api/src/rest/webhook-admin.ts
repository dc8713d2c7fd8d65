import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import {
  createWebhook,
  DEFAULT_GRACE_HOURS,
  deleteWebhook,
  endTokenGrace,
  listPreviousTokens,
  MAX_GRACE_HOURS,
  findAdministeredWebhook,
  intakeUrl,
  knownTemplateId,
  listWebhooks,
  WEBHOOK_PAGE,
  rotateWebhookToken,
  setWebhookTemplate,
  SIGNATURE_SCHEMES,
  type AdministeredWebhook,
  type WebhookAdminStore,
} from '@inntak/intake';
import { DEFAULT_LOCALE, findTemplate, listTemplates, LOCALES } from '@inntak/templates';
import type { RouteRegistry } from '../route-registry.js';
import { Id, JsonObject, storableText, TemplateId, Timestamp } from '../schemas.js';

export interface WebhookAdminDeps {
  webhookAdmin: WebhookAdminStore;
  baseUrl: string;
}

const Webhook = z.object({
  id: Id,
  title: z.string().nullable(),
  token: z.uuid(),
  url: z.url(),
  template_id: z.string().nullable(),
  collection_id: Id,
  signature_scheme: z.enum(SIGNATURE_SCHEMES).nullable().describe('the scheme requests must be signed with (set_webhook_secret); null: unsigned requests are accepted'),
  created_at: Timestamp,
});

const WebhookRef = z.strictObject({ webhook_id: Id });

const GraceHours = z
  .number()
  .min(0)
  .max(MAX_GRACE_HOURS)
  .describe(`how long the old token stays accepted, in hours (default ${DEFAULT_GRACE_HOURS}; 0: it answers 404 at once; at most ${MAX_GRACE_HOURS}). Every request with it is counted and marked previous_token in the delivery log`);

const PreviousToken = z.object({
  rotated_at: Timestamp,
  grace_until: Timestamp.describe('when it stops (stopped) being accepted'),
  ended_early: z.boolean().describe('the grace was ended by end_webhook_token_grace'),
  active: z.boolean().describe('accepted now'),
  hits: z.number().int().describe('requests that came with it during its grace, accepted or refused'),
  last_hit_at: Timestamp.nullable(),
});

/** The language a webhook's template writes in (docs/templates.md#language): nb when not given. */
const Locale = z.enum(LOCALES).describe('nb (default) or en: the language of the words the template writes (headlines, labels), never of the sender\'s own words');

const TemplateInfo = z.object({ id: z.string(), title: z.string(), description: z.string(), senders: z.array(z.string()) });

const Preview = z.object({ title: z.string(), content: z.string(), extra_metadata: JsonObject });

const TAGS = ['webhooks'];

/**
 * Webhook administration: create, set template, rotate token, delete, list; the template
 * listing and preview. Who may: docs/access.md (admin or owner on the webhook's collection).
 */
export function installWebhookAdmin(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: WebhookAdminDeps): void {
  const view = (w: AdministeredWebhook): z.input<typeof Webhook> => ({
    ...w,
    url: intakeUrl(deps.baseUrl, w.token),
    created_at: w.created_at.toISOString(),
  });

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/create_webhook',
      summary: 'Create a webhook for a collection',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ collection_id: Id, template_id: TemplateId.nullish(), locale: Locale.optional(), title: storableText(z.string().max(500)).nullish() }),
      response: { status: 201, schema: Webhook },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => {
      const templateId = knownTemplateId(body.template_id);
      const created = await createWebhook(deps.webhookAdmin, caller, { collectionId: body.collection_id, templateId, locale: body.locale, title: body.title ?? null });
      return view((await findAdministeredWebhook(deps.webhookAdmin, caller, created.id))!);
    },
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/set_template',
      summary: "Change a webhook's payload template (null: generic extraction)",
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ webhook_id: Id, template_id: TemplateId.nullable(), locale: Locale.optional() }),
      response: { status: 200, schema: Webhook },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) =>
      view(await setWebhookTemplate(deps.webhookAdmin, caller, { webhook_id: body.webhook_id, template_id: knownTemplateId(body.template_id), locale: body.locale })),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/rotate_webhook_token',
      summary: 'Give a webhook a new token; the old one stays accepted for a grace period (default 24 h), then answers 404',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ webhook_id: Id, grace_hours: GraceHours.optional() }),
      response: { status: 200, schema: Webhook },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => view(await rotateWebhookToken(deps.webhookAdmin, caller, body)),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/end_webhook_token_grace',
      summary: "End the grace of a webhook's previous tokens now: they answer 404 from then on",
      tags: TAGS,
      auth: 'jwt',
      body: WebhookRef,
      response: { status: 200, schema: z.object({ webhook_id: Id, ended: z.number().int().describe('previous tokens that were still accepted') }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => endTokenGrace(deps.webhookAdmin, caller, body),
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks/{id}/previous-tokens',
      summary: "A webhook's rotated-away tokens (never the tokens): grace end and hits, latest first, at most 10",
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      response: { status: 200, schema: z.array(PreviousToken) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ params, caller }) =>
      (await listPreviousTokens(deps.webhookAdmin, caller, params.id)).map((t) => ({
        ...t,
        rotated_at: t.rotated_at.toISOString(),
        grace_until: t.grace_until.toISOString(),
        last_hit_at: t.last_hit_at?.toISOString() ?? null,
      })),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/delete_webhook',
      summary: 'Delete a webhook; content it created stays',
      tags: TAGS,
      auth: 'jwt',
      body: WebhookRef,
      response: { status: 200, schema: z.object({ id: Id }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => deleteWebhook(deps.webhookAdmin, caller, body),
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks',
      summary: 'The webhooks the caller administers, in the order they were made, a page at a time',
      description:
        `Keyset pagination on a bare list (the answer stays an array): at most limit webhooks (default and maximum ${WEBHOOK_PAGE.max}); ` +
        'when there are more, the Link header names the next page (rel="next"), whose cursor is the last id of this one.',
      tags: TAGS,
      auth: 'jwt',
      query: z.object({
        limit: z.coerce.number().int().min(1).max(WEBHOOK_PAGE.max).default(WEBHOOK_PAGE.default),
        cursor: Id.optional().describe('the last id of the page before'),
      }),
      response: {
        status: 200,
        schema: z.array(Webhook),
        headers: { Link: '`<…/admin/webhooks?limit=N&cursor=ID>; rel="next"` when there is a next page (RFC 8288); absent on the last page' },
      },
      errors: [400, 401],
    },
    auth,
    async ({ query, caller, setHeader }) => {
      const page = await listWebhooks(deps.webhookAdmin, caller, { limit: query.limit, cursor: query.cursor });
      if (page.next_cursor !== null) setHeader('Link', `<${deps.baseUrl}/admin/webhooks?limit=${query.limit}&cursor=${page.next_cursor}>; rel="next"`);
      return page.webhooks.map(view);
    },
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks/templates',
      summary: 'The payload templates',
      tags: TAGS,
      auth: 'jwt',
      response: { status: 200, schema: z.array(TemplateInfo) },
      errors: [401],
    },
    auth,
    async () => listTemplates().map((t) => ({ ...t, senders: [...t.senders] })),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/admin/webhooks/templates/{id}/preview',
      summary: 'Apply a template to a payload without storing anything',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: TemplateId }),
      body: z.strictObject({ payload: z.unknown(), headers: z.record(z.string(), z.string()).optional(), locale: Locale.optional() }),
      response: { status: 200, schema: Preview },
      errors: [400, 401, 404],
    },
    auth,
    async ({ params, body }) => {
      const template = findTemplate(params.id);
      if (!template) throw new AppError('not_found', { detail: `mal ${params.id}` });
      const headers = Object.fromEntries(Object.entries(body.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      const { title, content, extra_metadata } = template.render(body.payload ?? {}, headers, body.locale ?? DEFAULT_LOCALE);
      return { title, content, extra_metadata };
    },
  );
}
