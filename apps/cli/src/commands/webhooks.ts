import { DIRECTORY_PAGE, OPERATOR } from '@inntak/access';
import type { SignatureScheme } from '@inntak/intake';
import { id, optional, required, requireKind, TABLE, UsageError, wholeNumber, type CommandContext, type CommandSpec } from '../command-line.js';

// Loaded in `run`, not at start-up: every `inntak` call parses this table (docs/cli.md, "Speed").
const intake = () => import('@inntak/intake');

async function view<W extends { token: string }>(context: CommandContext, webhook: W) {
  const { intakeUrl } = await intake();
  return { ...webhook, url: intakeUrl(context.baseUrl, webhook.token) };
}

export const webhookAdd: CommandSpec = {
  name: 'webhook add',
  args: '--collection ID [--template T] [--title T]',
  summary: 'a webhook: {id, token, url}',
  options: {
    collection: id('the collection its content belongs to'),
    template: { type: 'string', help: 'a payload template id (see `inntak templates`); default: generic extraction' },
    title: { type: 'string', help: "the webhook's title" },
  },
  async run(options, context) {
    const { intakeUrl, knownTemplateId } = await intake();
    const templateId = knownTemplateId(optional(options, 'template'));
    const collectionId = await requireKind(context, options, 'collection', 'collection');
    const webhook = await context.services.createWebhook({ collectionId, templateId, title: optional(options, 'title') ?? null });
    return { id: webhook.id, token: webhook.token, url: intakeUrl(context.baseUrl, webhook.token) };
  },
};

// listWebhooks' page (WEBHOOK_PAGE in packages/intake): the directory's maximum, and that as the
// default. The answer stays a list; the next page's --cursor goes to stderr, or under --table.
const WEBHOOK_PAGE_MAX = DIRECTORY_PAGE.max;

export const webhookList: CommandSpec = {
  name: 'webhook list',
  args: '[--limit N] [--cursor C] [--table]',
  summary: `the webhooks with token, url, template_id, collection_id in the order they were made, at most ${WEBHOOK_PAGE_MAX}; a next page's --cursor on stderr`,
  options: {
    limit: { type: 'string', help: `at most this many, 1–${WEBHOOK_PAGE_MAX} (default ${WEBHOOK_PAGE_MAX})` },
    cursor: id('the last id of the page before (stderr names it: neste side: --cursor ID)'),
    table: TABLE,
  },
  async run(options, context) {
    const limit = wholeNumber(options, 'limit', { min: 1, max: WEBHOOK_PAGE_MAX }) ?? WEBHOOK_PAGE_MAX;
    const page = await context.services.listWebhooks(OPERATOR, { limit, cursor: optional(options, 'cursor') });
    const webhooks = await Promise.all(page.webhooks.map((w) => view(context, w)));
    // A table is for a person: it ends with the next page's option, as the directory's pages do.
    if (options.table === true) return { webhooks, next_cursor: page.next_cursor };
    if (page.next_cursor !== null) context.progress?.(`neste side: --cursor ${page.next_cursor}`);
    return webhooks;
  },
};

export const webhookDelete: CommandSpec = {
  name: 'webhook delete',
  args: '--webhook ID',
  summary: 'delete a webhook and its delivery log (what it created stays in the collection): {id}',
  options: { webhook: id('the webhook') },
  async run(options, context) {
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    // The API's delete_webhook use case, as the operator: the same checks and the same transaction.
    return context.services.deleteWebhook(OPERATOR, { webhook_id: webhookId });
  },
};

export const webhookSetTemplate: CommandSpec = {
  name: 'webhook set-template',
  args: '--webhook ID (--template T | --clear)',
  summary: "change a webhook's template",
  options: {
    webhook: id('the webhook'),
    template: { type: 'string', help: 'a payload template id' },
    clear: { type: 'boolean', help: 'back to generic extraction' },
  },
  async run(options, context) {
    if (options.clear === true && options.template !== undefined) throw new UsageError('gi enten --template eller --clear, ikke begge');
    if (options.clear !== true && options.template === undefined) throw new UsageError('--template eller --clear mangler');
    const { knownTemplateId } = await intake();
    const templateId = options.clear === true ? null : knownTemplateId(required(options, 'template'));
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return view(context, await context.services.setWebhookTemplate(OPERATOR, { webhook_id: webhookId, template_id: templateId }));
  },
};

export const webhookRotate: CommandSpec = {
  name: 'webhook rotate',
  args: '--webhook ID [--grace HOURS]',
  summary: 'a new token; the old one stays accepted for the grace (default 24 h; 0: answers 404 at once), its hits logged',
  options: {
    webhook: id('the webhook'),
    grace: { type: 'string', help: 'hours the old token stays accepted, 0–168 (default 24; 0: none)' },
  },
  async run(options, context) {
    const raw = optional(options, 'grace');
    const grace = raw === undefined ? undefined : Number(raw);
    if (grace !== undefined && !(raw!.trim() !== '' && Number.isFinite(grace) && grace >= 0 && grace <= 168)) {
      throw new UsageError(`--grace må være et antall timer fra 0 til 168; fikk «${raw}»`);
    }
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return view(context, await context.services.rotateWebhookToken(OPERATOR, { webhook_id: webhookId, grace_hours: grace }));
  },
};

export const webhookEndGrace: CommandSpec = {
  name: 'webhook end-grace',
  args: '--webhook ID',
  summary: "end the grace of the webhook's previous tokens now (they answer 404 from then on): {webhook_id, ended}",
  options: { webhook: id('the webhook') },
  async run(options, context) {
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return context.services.endTokenGrace(OPERATOR, { webhook_id: webhookId });
  },
};

export const webhookDeliveries: CommandSpec = {
  name: 'webhook deliveries',
  args: '--webhook ID [--status S] [--limit N] [--cursor C]',
  summary: "the webhook's delivery log, newest first: {deliveries, next_cursor} (docs/deliveries.md)",
  options: {
    webhook: id('the webhook'),
    status: { type: 'string', help: 'one HTTP status (e.g. 401), failed (anything but 200) or duplicate' },
    limit: { type: 'string', help: 'rows per page, 1–200 (default 50)' },
    cursor: id('next_cursor of the page before'),
  },
  async run(options, context) {
    const status = optional(options, 'status');
    const statusFilter = status === undefined ? undefined : status === 'failed' || status === 'duplicate' ? status : Number(status);
    if (typeof statusFilter === 'number' && !(Number.isInteger(statusFilter) && statusFilter >= 100 && statusFilter <= 599)) {
      throw new UsageError(`--status må være en HTTP-status (som 401), failed eller duplicate; fikk «${status}»`);
    }
    const limit = wholeNumber(options, 'limit', { min: 1, max: 200 }) ?? 50;
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return context.services.listDeliveries(OPERATOR, webhookId, { limit, before: optional(options, 'cursor'), status: statusFilter });
  },
};

export const webhookSetSecret: CommandSpec = {
  name: 'webhook set-secret',
  args: '--webhook ID --scheme github|gitlab|gitea|slack|standard-webhooks|none [--secret-stdin | --secret S]',
  summary: 'require requests signed with the sender’s scheme and secret (none: stop requiring it)',
  options: {
    webhook: id('the webhook'),
    scheme: { type: 'string', help: 'github, gitlab, gitea, slack, standard-webhooks or none' },
    'secret-stdin': { type: 'boolean', help: 'read the secret from stdin (keeps it out of the shell history and ps)' },
    secret: { type: 'string', help: 'the secret itself (visible in ps and the shell history: prefer --secret-stdin)' },
  },
  async run(options, context) {
    const scheme = required(options, 'scheme');
    const { SIGNATURE_SCHEMES } = await intake();
    if (!(SIGNATURE_SCHEMES as readonly string[]).includes(scheme) && scheme !== 'none') {
      throw new UsageError(`--scheme må være ${SIGNATURE_SCHEMES.join(', ')} eller none; fikk «${scheme}»`);
    }
    if (options.secret !== undefined && options['secret-stdin'] === true) throw new UsageError('gi enten --secret eller --secret-stdin, ikke begge');
    let secret: string | undefined = optional(options, 'secret');
    if (options['secret-stdin'] === true) secret = (await (context.readStdin ?? readStdin)()).replace(/\r?\n$/, '');
    if (scheme !== 'none' && secret === undefined) throw new UsageError('--secret-stdin eller --secret mangler');
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return context.services.setWebhookSecret(OPERATOR, { webhook_id: webhookId, scheme: scheme as SignatureScheme | 'none', secret });
  },
};

export const webhookRerender: CommandSpec = {
  name: 'webhook rerender',
  args: '--webhook ID [--since DATE] [--after NODE_ID] [--batch N]',
  summary: "render the webhook's stored deliveries again with its current template; progress on stderr",
  options: {
    webhook: id('the webhook'),
    since: { type: 'string', help: 'only nodes created at or after this date/time (ISO 8601, e.g. 2026-11-01)' },
    after: id('go on after this node id (the last_node_id of an interrupted run)'),
    batch: { type: 'string', help: 'nodes per transaction, 1–5000 (default 500)' },
  },
  async run(options, context) {
    const sinceText = optional(options, 'since');
    const since = sinceText === undefined ? undefined : new Date(sinceText);
    if (since && Number.isNaN(since.getTime())) throw new UsageError(`--since må være en dato (ISO 8601, som 2026-11-01); fikk «${sinceText}»`);
    const batch = wholeNumber(options, 'batch', { min: 1, max: 5000 }) ?? 500;
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return context.services.rerenderWebhook({
      webhookId,
      since,
      after: optional(options, 'after'),
      batch,
      progress: (done, total, last) => context.progress?.(`rerendered ${done}/${total} (last node ${last})`),
    });
  },
};

/** All of stdin as text (a secret piped in: it stays out of ps and the shell history). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
