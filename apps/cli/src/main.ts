#!/usr/bin/env node
import { parseArgs } from 'node:util';
import winston from 'winston';
import { AppError } from '@inntak/core';
import { listTemplates } from '@inntak/templates';
import { migrate, openDatabase } from '@inntak/postgres';
import { isDatabaseCommand, runDatabaseCommand, UsageError } from './commands.js';
import { isMediaCommand, runMediaCommand } from './media-commands.js';
import { loadConfig } from './config.js';
import { resolveDatabase } from './database.js';
import { startAll } from './start.js';

const USAGE = `inntak — webhooks into a graph

  inntak start                                   migrate, then run the API and the worker
  inntak migrate                                 apply database migrations
  inntak person add --subject S [--issuer I] [--name N] [--admin]
  inntak collection add --title T --owner PERSON_ID
  inntak webhook add --collection ID [--template T] [--title T]
  inntak webhook list                            every webhook, with token, url and template
  inntak webhook set-template --webhook ID (--template T | --clear)
  inntak webhook rotate --webhook ID             new token; the old one stops working
  inntak member add --collection ID --person PERSON_ID [--access reader|member|admin|owner]
  inntak templates                               list the payload templates
  inntak tts --node ID [--voice V] [--rate WPM]  read a node aloud (a worker must run); prints the media id
  inntak prune [--dry-run]                       one storage pruning run; prints what was (or would be) deleted

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
    clear: { type: 'boolean' },
    webhook: { type: 'string' },
    person: { type: 'string' },
    access: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    node: { type: 'string' },
    voice: { type: 'string' },
    rate: { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
});

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
  if (command !== 'start' && command !== 'migrate' && !isDatabaseCommand(command) && !isMediaCommand(command)) throw new UsageError(`unknown command "${command}"`);

  const database = await resolveDatabase(config, logger);
  if (command === 'start') return startAll(database, logger);
  try {
    if (command === 'migrate') {
      print(await migrate(database.url));
      return 0;
    }
    const handle = openDatabase({ connectionString: database.url, logger, max: 2 });
    try {
      if (isDatabaseCommand(command)) print(await runDatabaseCommand(command, values, { db: handle.db, baseUrl: config.baseUrl }));
      if (isMediaCommand(command)) print(await runMediaCommand(command, values, { db: handle.db, storageDir: config.storageDir, log: (m) => logger.info(m) }));
      return 0;
    } finally {
      await handle.close();
    }
  } finally {
    await database.release();
  }
}

/** One line for the operator; AppError details name the option's field (`collection_id`). */
function describeError(err: unknown): string {
  if (!(err instanceof AppError)) return err instanceof Error ? err.message : String(err);
  if (err.code === 'not_found') return `${err.detail ?? 'node'} does not exist`;
  return err.detail ? `${err.code}: ${err.detail}` : err.code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stdout.write(`${JSON.stringify({ error: describeError(err) })}\n`);
    if (err instanceof UsageError) process.stderr.write(`${USAGE}\n`);
    process.exit(err instanceof UsageError ? 2 : 1);
  },
);
