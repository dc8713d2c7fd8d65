import type { CommandSpec } from '../command-line.js';

// Commands main.ts runs itself: before a database (templates, token), or on the processes and
// the schema (start, migrate).
export const start: CommandSpec = { name: 'start', args: '', summary: 'migrate, then run the API and the worker (what `npm start` runs)', options: {} };
export const migrate: CommandSpec = { name: 'migrate', args: '', summary: "apply db/migrations and graphile-worker's schema", options: {} };
export const templates: CommandSpec = { name: 'templates', args: '', summary: 'the payload templates', options: {} };
export const token: CommandSpec = {
  name: 'token',
  args: '--subject S [--minutes M]',
  summary: 'a short-lived JWT from the development issuer (an API started with INNTAK_DEV_ISSUER=1 accepts it)',
  options: {
    subject: { type: 'string', help: 'the `sub` claim: a subject given to `person add`' },
    minutes: { type: 'string', help: 'lifetime in minutes, 1 to 60 (default 15)' },
  },
};
