import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { OPERATOR, isAccessLevel } from '@inntak/access';
import { AppError, isUuid } from '@inntak/core';
import { intakeUrl, knownTemplateId, SIGNATURE_SCHEMES, type SignatureScheme } from '@inntak/intake';
import { listDeliveries, rerenderWebhook, setWebhookSecret } from '@inntak/postgres/deliveries';
import { type Db } from '@inntak/postgres';
import { createCollection, createPerson, grantAccess } from '@inntak/postgres/graph';
import { EVENT_TYPES, type EventType } from '@inntak/orchestration';
import { addCollectionOrchestration } from '@inntak/postgres/orchestration';
import { createPublication, publishArticle, runAbEvaluation } from '@inntak/postgres/publishing';
import { createWebhook, listWebhooks, rotateWebhookToken, setWebhookTemplate, type AdministeredWebhook } from '@inntak/postgres/intake';

/**
 * A failure the user can act on, printed as `{"error": message}`. Exit code 2 is a mistake in the
 * command line itself (nothing was touched), 1 a failure while doing the work.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
  }
}

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, 2);
  }
}

type OptionSpec = { type: 'string' | 'boolean'; help: string; uuid?: true; multiple?: true };

export interface CommandSpec {
  name: string;
  args: string;
  summary: string;
  options: Record<string, OptionSpec>;
}

const id = (help: string): OptionSpec => ({ type: 'string', help, uuid: true });

/** Every command, its options and its help: one table for parsing, validation and --help. */
export const COMMANDS: readonly CommandSpec[] = [
  { name: 'start', args: '', summary: 'migrate, then run the API and the worker (what `npm start` runs)', options: {} },
  { name: 'migrate', args: '', summary: "apply db/migrations and graphile-worker's schema", options: {} },
  {
    name: 'person add',
    args: '--subject S [--issuer I] [--name N] [--admin]',
    summary: 'a person node and its login identity',
    options: {
      subject: { type: 'string', help: "the identity's `sub` claim" },
      issuer: { type: 'string', help: 'the issuer that must have signed it (default: any issuer)' },
      name: { type: 'string', help: "the person's display name" },
      admin: { type: 'boolean', help: 'make the person a system administrator' },
    },
  },
  {
    name: 'collection add',
    args: '--title T --owner PERSON_ID',
    summary: 'a collection; the owner gets an owner access row',
    options: { title: { type: 'string', help: "the collection's title" }, owner: id('the person who owns it') },
  },
  {
    name: 'webhook add',
    args: '--collection ID [--template T] [--title T]',
    summary: 'a webhook: {id, token, url}',
    options: {
      collection: id('the collection its content belongs to'),
      template: { type: 'string', help: 'a payload template id (see `inntak templates`); default: generic extraction' },
      title: { type: 'string', help: "the webhook's title" },
    },
  },
  { name: 'webhook list', args: '', summary: 'every webhook with token, url, template_id, collection_id', options: {} },
  {
    name: 'webhook set-template',
    args: '--webhook ID (--template T | --clear)',
    summary: "change a webhook's template",
    options: {
      webhook: id('the webhook'),
      template: { type: 'string', help: 'a payload template id' },
      clear: { type: 'boolean', help: 'back to generic extraction' },
    },
  },
  { name: 'webhook rotate', args: '--webhook ID', summary: 'a new token; the old one answers 404 at once', options: { webhook: id('the webhook') } },
  {
    name: 'webhook deliveries',
    args: '--webhook ID [--status S] [--limit N] [--cursor C]',
    summary: "the webhook's delivery log, newest first: {deliveries, next_cursor} (docs/deliveries.md)",
    options: {
      webhook: id('the webhook'),
      status: { type: 'string', help: 'one HTTP status (e.g. 401), failed (anything but 200) or duplicate' },
      limit: { type: 'string', help: 'rows per page, 1–200 (default 50)' },
      cursor: id('next_cursor of the page before'),
    },
  },
  {
    name: 'webhook set-secret',
    args: '--webhook ID --scheme github|gitlab|gitea|slack|standard-webhooks|none [--secret-stdin | --secret S]',
    summary: 'require requests signed with the sender’s scheme and secret (none: stop requiring it)',
    options: {
      webhook: id('the webhook'),
      scheme: { type: 'string', help: 'github, gitlab, gitea, slack, standard-webhooks or none' },
      'secret-stdin': { type: 'boolean', help: 'read the secret from stdin (keeps it out of the shell history and ps)' },
      secret: { type: 'string', help: 'the secret itself (visible in ps and the shell history: prefer --secret-stdin)' },
    },
  },
  {
    name: 'webhook rerender',
    args: '--webhook ID [--since DATE] [--after NODE_ID] [--batch N]',
    summary: "render the webhook's stored deliveries again with its current template; progress on stderr",
    options: {
      webhook: id('the webhook'),
      since: { type: 'string', help: 'only nodes created at or after this date/time (ISO 8601, e.g. 2026-11-01)' },
      after: id('go on after this node id (the last_node_id of an interrupted run)'),
      batch: { type: 'string', help: 'nodes per transaction, 1–5000 (default 500)' },
    },
  },
  {
    name: 'member add',
    args: '--collection ID --person PERSON_ID [--access reader|member|admin|owner]',
    summary: 'grant a person a level on a collection and everything in it (default member)',
    options: {
      collection: id('the collection'),
      person: id('the person'),
      access: { type: 'string', help: 'reader, member (default), admin or owner' },
    },
  },
  {
    name: 'token',
    args: '--subject S [--minutes M]',
    summary: 'a short-lived JWT from the development issuer (an API started with INNTAK_DEV_ISSUER=1 accepts it)',
    options: {
      subject: { type: 'string', help: 'the `sub` claim: a subject given to `person add`' },
      minutes: { type: 'string', help: 'lifetime in minutes, 1 to 60 (default 15)' },
    },
  },
  {
    name: 'orchestration add',
    args: '--collection ID --file script.yaml [--event node.created|edge.created] [--node-kind K] [--title T]',
    summary: "an orchestration observing a collection, run as the collection's owner (docs/orchestration.md)",
    options: {
      collection: id('the collection it observes and belongs to'),
      file: { type: 'string', help: 'the script (YAML); checked before anything is saved' },
      event: { type: 'string', help: 'node.created (default: a node created in the collection) or edge.created (an edge to or from the collection)' },
      'node-kind': { type: 'string', help: 'only nodes of this kind (for edge.created: edges from one), e.g. content — the collection\'s webhooks are nodes in it too' },
      title: { type: 'string', help: "the orchestration's title" },
    },
  },
  {
    name: 'publication add',
    args: '--slug S --title T --owner PERSON_ID [--about A] [--domain D ...]',
    summary: 'a publication (docs/publishing.md): its pages at /pub/S and at the root of each --domain',
    options: {
      slug: { type: 'string', help: 'lowercase letters, digits and hyphens: /pub/SLUG' },
      title: { type: 'string', help: "the publication's title" },
      owner: id('the person who owns it'),
      about: { type: 'string', help: 'the text of the about page' },
      domain: { type: 'string', help: 'a custom domain serving the pages (repeatable)', multiple: true },
    },
  },
  {
    name: 'publish',
    args: '--publication ID --node ID',
    summary: 'publish a node in a publication (a published_in edge)',
    options: { publication: id('the publication'), node: id('the node to publish') },
  },
  { name: 'ab evaluate', args: '', summary: 'run the A/B evaluator of front-page variants now; prints what it decided', options: {} },
  { name: 'templates', args: '', summary: 'the payload templates', options: {} },
  {
    name: 'tts',
    args: '--node ID [--voice V] [--rate WPM]',
    summary: 'read a node aloud: queues tts_generate, waits for a worker, prints the media id (docs/media.md)',
    options: {
      node: id('the node whose title and content are read'),
      voice: { type: 'string', help: 'an eSpeak NG voice (default nb)' },
      rate: { type: 'string', help: 'words per minute, 80 to 450 (default 175)' },
    },
  },
  {
    name: 'prune',
    args: '[--dry-run]',
    summary: 'one storage pruning run: {mode, disk_percent, deleted, freed_bytes} (docs/media.md)',
    options: { 'dry-run': { type: 'boolean', help: 'decide and print, delete nothing' } },
  },
];

export const DATABASE_COMMANDS = [
  'person add',
  'collection add',
  'webhook add',
  'webhook list',
  'webhook set-template',
  'webhook rotate',
  'webhook deliveries',
  'webhook set-secret',
  'webhook rerender',
  'member add',
  'orchestration add',
  'publication add',
  'publish',
  'ab evaluate',
] as const;
export type DatabaseCommand = (typeof DATABASE_COMMANDS)[number];

export function isDatabaseCommand(command: string): command is DatabaseCommand {
  return (DATABASE_COMMANDS as readonly string[]).includes(command);
}

export type Options = Record<string, string | string[] | boolean | undefined>;

export const USAGE = `inntak — webhooks into a graph

${COMMANDS.map((c) => `  inntak ${`${c.name} ${c.args}`.trim()}\n      ${c.summary}`).join('\n')}

\`inntak <command> --help\` describes a command. Every command prints JSON on stdout; errors are
{"error": "..."} with exit code 2 for a mistake in the command line and 1 for a failure. Without
DATABASE_URL an embedded PostgreSQL under .data/ is used (shared with a running \`npm start\`).`;

export function commandHelp(command: CommandSpec): string {
  const options = Object.entries(command.options).map(([name, o]) => `  --${name}${o.type === 'string' ? (o.uuid ? ' ID' : ' VALUE') : ''}\n      ${o.help}`);
  return [`inntak ${`${command.name} ${command.args}`.trim()}`, '', `  ${command.summary}`, '', ...options, '  --help\n      this text'].join('\n');
}

export interface ParsedCommand {
  command: CommandSpec | undefined;
  values: Options;
  help: boolean;
}

/**
 * The command is the longest table entry the leading words name; its options are parsed by
 * node:util's parseArgs (strict), and its errors are re-worded for a person at a shell.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const words = argv.slice(0, 2).filter((w) => !w.startsWith('-'));
  const command = COMMANDS.find((c) => c.name === words.join(' ')) ?? COMMANDS.find((c) => c.name === words[0]);
  if (!command) {
    if (words.length === 0 || words[0] === 'help') return { command: undefined, values: {}, help: true };
    throw new UsageError(`ukjent kommando «${words.join(' ')}»; se inntak --help`);
  }
  const rest = argv.slice(command.name.split(' ').length);
  const options = Object.fromEntries(Object.entries(command.options).map(([name, o]) => [name, { type: o.type, ...(o.multiple ? { multiple: true } : {}) }]));
  let values: Options;
  try {
    values = parseArgs({ args: [...rest], strict: true, allowPositionals: false, options: { ...options, help: { type: 'boolean', short: 'h' } } }).values as Options;
  } catch (err) {
    throw new UsageError(plainParseError(err, command));
  }
  if (values.help === true) return { command, values, help: true };
  for (const [name, o] of Object.entries(command.options)) {
    const value = values[name];
    if (o.uuid && value !== undefined && !isUuid(value)) throw new UsageError(`--${name} må være en UUID (som 0190c5a0-0000-7000-8000-000000000000); fikk «${String(value)}»`);
  }
  return { command, values, help: false };
}

function plainParseError(err: unknown, command: CommandSpec): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = (err as { code?: string }).code;
  const named = /'(-{1,2}[^' =<]+)/.exec(message)?.[1];
  const see = `; se inntak ${command.name} --help`;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `ukjent valg ${named ?? message} for «${command.name}»${see}`;
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `uventet argument ${/'([^']*)'/.exec(message)?.[1] ?? ''} (verdier skrives etter et valg, som --title T)${see}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && named) {
    const spec = command.options[named.replace(/^-+/, '')];
    if (spec?.type === 'boolean' || named === '--help' || named === '-h') return `${named} tar ingen verdi (skriv bare ${named})${see}`;
    return `${named} mangler en verdi${see}`;
  }
  return message;
}

/**
 * The commands that work on the database, as an operator: a system administrator at a shell
 * (OPERATOR), through the same checked writes the API uses. Each returns the JSON to print.
 */
export interface DatabaseCommandDeps {
  db: Db;
  baseUrl: string;
  /** A line of progress for the person at the shell (stderr; stdout is for the JSON answer). */
  progress?: (line: string) => void;
  readStdin?: () => Promise<string>;
  /** ORCHESTRATIONS_PER_PERSON; absent: the default (100). */
  orchestrationsPerPerson?: number;
}

export async function runDatabaseCommand(command: DatabaseCommand, options: Options, deps: DatabaseCommandDeps): Promise<unknown> {
  const { db } = deps;
  const view = (w: AdministeredWebhook) => ({ ...w, url: intakeUrl(deps.baseUrl, w.token) });
  switch (command) {
    case 'person add': {
      const subject = required(options, 'subject');
      const issuer = optional(options, 'issuer');
      if (issuer !== undefined && issuer.trim() === '') throw new UsageError('--issuer kan ikke være tom (utelat den for å godta alle utstedere)');
      const existing = await db
        .selectFrom('auth_identities')
        .select('node_id')
        .where('issuer', '=', issuer ?? '')
        .where('subject', '=', subject)
        .executeTakeFirst();
      if (existing) throw new CliError(`det finnes allerede en person med --subject ${subject}${issuer ? ` og --issuer ${issuer}` : ''} (${existing.node_id})`);
      return createPerson(db, { subject, issuer, name: optional(options, 'name'), admin: options.admin === true });
    }
    case 'collection add': {
      const title = required(options, 'title');
      const ownerId = await requireKind(db, options, 'owner', 'person');
      return createCollection(db, { title, ownerId });
    }
    case 'webhook add': {
      const templateId = knownTemplateId(optional(options, 'template'));
      const collectionId = await requireKind(db, options, 'collection', 'collection');
      const webhook = await createWebhook(db, { collectionId, templateId, title: optional(options, 'title') ?? null });
      return { id: webhook.id, token: webhook.token, url: intakeUrl(deps.baseUrl, webhook.token) };
    }
    case 'webhook list':
      return (await listWebhooks(db, OPERATOR)).map(view);
    case 'webhook set-template': {
      if (options.clear === true && options.template !== undefined) throw new UsageError('gi enten --template eller --clear, ikke begge');
      if (options.clear !== true && options.template === undefined) throw new UsageError('--template eller --clear mangler');
      const templateId = options.clear === true ? null : knownTemplateId(required(options, 'template'));
      const webhookId = await requireKind(db, options, 'webhook', 'webhook');
      return view(await setWebhookTemplate(db, OPERATOR, { webhook_id: webhookId, template_id: templateId }));
    }
    case 'webhook rotate':
      return view(await rotateWebhookToken(db, OPERATOR, { webhook_id: await requireKind(db, options, 'webhook', 'webhook') }));
    case 'webhook deliveries': {
      const status = optional(options, 'status');
      const statusFilter = status === undefined ? undefined : status === 'failed' || status === 'duplicate' ? status : Number(status);
      if (typeof statusFilter === 'number' && !(Number.isInteger(statusFilter) && statusFilter >= 100 && statusFilter <= 599)) {
        throw new UsageError(`--status må være en HTTP-status (som 401), failed eller duplicate; fikk «${status}»`);
      }
      const limit = wholeNumber(options, 'limit', { min: 1, max: 200 }) ?? 50;
      const webhookId = await requireKind(db, options, 'webhook', 'webhook');
      return listDeliveries(db, OPERATOR, webhookId, { limit, before: optional(options, 'cursor'), status: statusFilter });
    }
    case 'webhook set-secret': {
      const scheme = required(options, 'scheme');
      if (!(SIGNATURE_SCHEMES as readonly string[]).includes(scheme) && scheme !== 'none') {
        throw new UsageError(`--scheme må være ${SIGNATURE_SCHEMES.join(', ')} eller none; fikk «${scheme}»`);
      }
      if (options.secret !== undefined && options['secret-stdin'] === true) throw new UsageError('gi enten --secret eller --secret-stdin, ikke begge');
      let secret: string | undefined = optional(options, 'secret');
      if (options['secret-stdin'] === true) secret = (await (deps.readStdin ?? readStdin)()).replace(/\r?\n$/, '');
      if (scheme !== 'none' && secret === undefined) throw new UsageError('--secret-stdin eller --secret mangler');
      const webhookId = await requireKind(db, options, 'webhook', 'webhook');
      return setWebhookSecret(db, OPERATOR, { webhook_id: webhookId, scheme: scheme as SignatureScheme | 'none', secret });
    }
    case 'webhook rerender': {
      const sinceText = optional(options, 'since');
      const since = sinceText === undefined ? undefined : new Date(sinceText);
      if (since && Number.isNaN(since.getTime())) throw new UsageError(`--since må være en dato (ISO 8601, som 2026-11-01); fikk «${sinceText}»`);
      const batch = wholeNumber(options, 'batch', { min: 1, max: 5000 }) ?? 500;
      const webhookId = await requireKind(db, options, 'webhook', 'webhook');
      return rerenderWebhook(db, {
        webhookId,
        since,
        after: optional(options, 'after'),
        batch,
        progress: (done, total, last) => deps.progress?.(`rerendered ${done}/${total} (last node ${last})`),
      });
    }
    case 'member add': {
      const access = optional(options, 'access') ?? 'member';
      if (!isAccessLevel(access)) throw new UsageError(`--access må være reader, member, admin eller owner; fikk «${access}»`);
      const subjectId = await requireKind(db, options, 'person', 'person');
      const objectId = await requireKind(db, options, 'collection', 'collection');
      const granted = await grantAccess(db, OPERATOR, { subject_id: subjectId, object_id: objectId, access });
      return { subject_id: subjectId, object_id: objectId, access, edge_id: granted.edge_id };
    }
    case 'orchestration add': {
      const event = optional(options, 'event') ?? 'node.created';
      if (!(EVENT_TYPES as readonly string[]).includes(event)) throw new UsageError(`--event må være node.created eller edge.created; fikk «${event}»`);
      const file = required(options, 'file');
      let script: string;
      try {
        script = await readFile(file, 'utf8');
      } catch (err) {
        throw new UsageError(`--file ${file} kan ikke leses (${(err as { code?: string }).code ?? (err as Error).message})`);
      }
      const collectionId = await requireKind(db, options, 'collection', 'collection');
      return addCollectionOrchestration(db, {
        collection_id: collectionId,
        script,
        event: event as EventType,
        node_kind: optional(options, 'node-kind'),
        title: optional(options, 'title'),
      }, deps.orchestrationsPerPerson);
    }
    case 'publication add': {
      const slug = required(options, 'slug');
      const title = required(options, 'title');
      const ownerId = await requireKind(db, options, 'owner', 'person');
      const domains = options.domain;
      return createPublication(db, { slug, title, ownerId, about: optional(options, 'about'), domains: Array.isArray(domains) ? domains : [] });
    }
    case 'publish':
      return publishArticle(db, OPERATOR, { publication_id: required(options, 'publication'), node_id: required(options, 'node') });
    case 'ab evaluate':
      return runAbEvaluation(db);
  }
}

/** The option's node must exist and be of the kind the option names (a person, a collection…). */
async function requireKind(db: Db, options: Options, name: string, kind: string): Promise<string> {
  const nodeId = required(options, name);
  const node = await db.selectFrom('nodes').select('node_kind').where('id', '=', nodeId).executeTakeFirst();
  if (!node) throw new CliError(`--${name} ${nodeId} finnes ikke`);
  if (node.node_kind !== kind) throw new CliError(`--${name} ${nodeId} er en ${node.node_kind}, ikke en ${kind}`);
  return nodeId;
}

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string') throw new UsageError(`--${name} mangler`);
  if (value.trim() === '') throw new UsageError(`--${name} kan ikke være tom`);
  return value;
}

function wholeNumber(options: Options, name: string, range: { min: number; max: number }): number | undefined {
  const text = optional(options, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < range.min || value > range.max) throw new UsageError(`--${name} må være et helt tall fra ${range.min} til ${range.max}; fikk «${text}»`);
  return value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** Words for a failure the checks above did not catch (AppError from a shared write, a dead database). */
export function describeFailure(err: unknown): CliError {
  if (err instanceof CliError) return err;
  if (err instanceof AppError) {
    if (err.code === 'unknown_template') return new UsageError(`ukjent mal «${err.detail?.replace(/^template_id: /, '')}»; se inntak templates`);
    if (err.code === 'conflict' && err.detail === 'den siste eieren kan ikke fjernes') {
      return new CliError(`${err.detail}: gi først en annen person --access owner på samlingen`);
    }
    if (err.code === 'not_found') return new CliError(`${err.detail ?? 'noden'} finnes ikke`);
    return new CliError(err.detail ?? err.code);
  }
  const code = (err as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT') {
    return new CliError(`databasen svarer ikke (${code}); sjekk DATABASE_URL`);
  }
  return new CliError(err instanceof Error ? err.message : String(err));
}
