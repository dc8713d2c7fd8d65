import { OPERATOR, isAccessLevel } from '@inntak/access';
import { intakeUrl, knownTemplateId } from '@inntak/intake';
import { type Db } from '@inntak/postgres';
import { createCollection, createPerson, grantAccess } from '@inntak/postgres/graph';
import { createPublication, publishArticle, runAbEvaluation } from '@inntak/postgres/publishing';
import { createWebhook, listWebhooks, rotateWebhookToken, setWebhookTemplate, type AdministeredWebhook } from '@inntak/postgres/intake';

/** A mistake in the command line itself: the usage text is shown with it. */
export class UsageError extends Error {}

export type Options = Record<string, string | string[] | boolean | undefined>;

export const DATABASE_COMMANDS = [
  'person add',
  'collection add',
  'webhook add',
  'webhook list',
  'webhook set-template',
  'webhook rotate',
  'member add',
  'publication add',
  'publish',
  'ab evaluate',
] as const;
export type DatabaseCommand = (typeof DATABASE_COMMANDS)[number];

export function isDatabaseCommand(command: string): command is DatabaseCommand {
  return (DATABASE_COMMANDS as readonly string[]).includes(command);
}

/**
 * The commands that work on the database, as an operator: a system administrator at a shell
 * (OPERATOR), through the same checked writes the API uses. Each returns the JSON to print.
 */
export async function runDatabaseCommand(command: DatabaseCommand, options: Options, deps: { db: Db; baseUrl: string }): Promise<unknown> {
  const { db } = deps;
  const view = (w: AdministeredWebhook) => ({ ...w, url: intakeUrl(deps.baseUrl, w.token) });
  switch (command) {
    case 'person add':
      return createPerson(db, {
        subject: required(options, 'subject'),
        issuer: optional(options, 'issuer'),
        name: optional(options, 'name'),
        admin: options.admin === true,
      });
    case 'collection add':
      return createCollection(db, { title: required(options, 'title'), ownerId: required(options, 'owner') });
    case 'webhook add': {
      const templateId = knownTemplateId(optional(options, 'template'));
      const webhook = await createWebhook(db, { collectionId: required(options, 'collection'), templateId, title: optional(options, 'title') ?? null });
      return { id: webhook.id, token: webhook.token, url: intakeUrl(deps.baseUrl, webhook.token) };
    }
    case 'webhook list':
      return (await listWebhooks(db, OPERATOR)).map(view);
    case 'webhook set-template': {
      if (options.clear === true && options.template !== undefined) throw new UsageError('give either --template or --clear');
      const templateId = options.clear === true ? null : knownTemplateId(required(options, 'template'));
      return view(await setWebhookTemplate(db, OPERATOR, { webhook_id: required(options, 'webhook'), template_id: templateId }));
    }
    case 'webhook rotate':
      return view(await rotateWebhookToken(db, OPERATOR, { webhook_id: required(options, 'webhook') }));
    case 'member add': {
      const access = optional(options, 'access') ?? 'member';
      if (!isAccessLevel(access)) throw new UsageError('--access must be reader, member, admin or owner');
      const subjectId = required(options, 'person');
      const objectId = required(options, 'collection');
      const granted = await grantAccess(db, OPERATOR, { subject_id: subjectId, object_id: objectId, access });
      return { subject_id: subjectId, object_id: objectId, access, edge_id: granted.edge_id };
    }
    case 'publication add': {
      const domains = options.domain;
      return createPublication(db, {
        slug: required(options, 'slug'),
        title: required(options, 'title'),
        ownerId: required(options, 'owner'),
        about: optional(options, 'about'),
        domains: Array.isArray(domains) ? domains : typeof domains === 'string' ? [domains] : [],
      });
    }
    case 'publish':
      return publishArticle(db, OPERATOR, { publication_id: required(options, 'publication'), node_id: required(options, 'node') });
    case 'ab evaluate':
      return runAbEvaluation(db);
  }
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}
