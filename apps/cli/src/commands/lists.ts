import { OPERATOR } from '@inntak/access';
import { TABLE, wholeNumber, type CommandSpec } from '../command-line.js';

// Lists read through the console's bounded reads as the operator (a system administrator sees
// all). Those reads take a limit and no cursor, so neither does the command: --limit, at most
// the console's own page (200 publications, 500 orchestrations).
const limitOption = (max: number, fallback: number) => ({ type: 'string' as const, help: `at most this many, 1–${max} (default ${fallback})` });

export const publicationList: CommandSpec = {
  name: 'publication list',
  args: '[--limit N] [--table]',
  summary: 'publications by title: {id, title, slug, level}',
  options: { limit: limitOption(200, 50), table: TABLE },
  run: async (options, { services }) => services.listPublications(OPERATOR, wholeNumber(options, 'limit', { min: 1, max: 200 }) ?? 50),
};

export const orchestrationList: CommandSpec = {
  name: 'orchestration list',
  args: '[--limit N] [--table]',
  summary: 'orchestrations by collection: {id, title, collectionId, collectionTitle, trigger, enabled}',
  options: { limit: limitOption(500, 50), table: TABLE },
  run: async (options, { services }) => services.listOrchestrations(OPERATOR, wholeNumber(options, 'limit', { min: 1, max: 500 }) ?? 50),
};
