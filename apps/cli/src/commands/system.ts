import { UsageError, type CommandSpec } from '../command-line.js';

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

/** The keys a fleet shares that sign (server_secrets); query_cursor seals cursors and is not rotated (a rotation would void every open cursor). */
const ROTATABLE = ['media_link', 'ab_visitor', 'ab_client', 'ab_impression', 'read_position'] as const;

export const secretsRotate: CommandSpec = {
  name: 'secrets rotate',
  args: '--name N',
  summary: `a new key for N (${ROTATABLE.join(', ')}); what the old one signed stays valid for 25 hours (docs/scaling.md, "Shared keys")`,
  options: { name: { type: 'string', help: `the key: ${ROTATABLE.join(', ')}` } },
  async run(options, { services }) {
    const name = options.name;
    if (typeof name !== 'string' || !(ROTATABLE as readonly string[]).includes(name)) throw new UsageError(`--name must be one of ${ROTATABLE.join(', ')}`);
    if (!(await services.rotateServerSecret(name))) throw new UsageError(`--name ${name}: no key yet (it is made when first used); nothing to rotate`);
    return { name, rotated: true, previous_accepted_hours: 25 };
  },
};
