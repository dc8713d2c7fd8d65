#!/usr/bin/env node
import { parseArgs } from 'node:util';
import winston from 'winston';
import { listTemplates } from '@inntak/templates';
import { createCollection, createPerson, createWebhook, migrate, openDatabase } from '@inntak/postgres';
import { loadConfig } from './config.js';
import { resolveDatabase } from './database.js';
import { startAll } from './start.js';

const USAGE = `inntak — webhooks into a graph

  inntak start                                   migrate, then run the API and the worker
  inntak migrate                                 apply database migrations
  inntak person add --subject S [--issuer I] [--name N] [--admin]
  inntak collection add --title T --owner PERSON_ID
  inntak webhook add --collection ID [--template T] [--title T]
  inntak templates                               list the payload templates

Every command prints JSON on stdout. Without DATABASE_URL an embedded PostgreSQL under .data/
is used (and shared with a running \`npm start\`).`;

const config = loadConfig();
// stdout is for the JSON answer; every log line goes to stderr.
const logger = winston.createLogger({
  level: config.logLevel,
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  defaultMeta: { service: 'inntak-cli' },
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] })],
});

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    subject: { type: 'string' },
    issuer: { type: 'string' },
    name: { type: 'string' },
    admin: { type: 'boolean' },
    title: { type: 'string' },
    owner: { type: 'string' },
    collection: { type: 'string' },
    template: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

class UsageError extends Error {}

function required(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(): Promise<number> {
  const command = positionals.join(' ');
  if (values.help || command === '' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command === 'templates') {
    print(listTemplates());
    return 0;
  }
  const known = ['start', 'migrate', 'person add', 'collection add', 'webhook add'];
  if (!known.includes(command)) throw new UsageError(`unknown command "${command}"`);

  const database = await resolveDatabase(config, logger);
  if (command === 'start') return startAll(database, logger);
  try {
    if (command === 'migrate') {
      print(await migrate(database.url));
      return 0;
    }
    const handle = openDatabase({ connectionString: database.url, logger, max: 2 });
    try {
      if (command === 'person add') {
        print(
          await createPerson(handle.db, {
            subject: required('subject'),
            issuer: values.issuer,
            name: values.name,
            admin: values.admin ?? false,
          }),
        );
      } else if (command === 'collection add') {
        print(await createCollection(handle.db, { title: required('title'), ownerId: required('owner') }));
      } else {
        const webhook = await createWebhook(handle.db, {
          collectionId: required('collection'),
          templateId: values.template ?? null,
          title: values.title ?? null,
        });
        print({ id: webhook.id, token: webhook.token, url: `${config.baseUrl}/api/webhook/${webhook.token}` });
      }
      return 0;
    } finally {
      await handle.close();
    }
  } finally {
    await database.release();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    if (err instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
