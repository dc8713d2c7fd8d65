import { DIRECTORY_PAGE, OPERATOR } from '@inntak/access';
import { id, optional, TABLE, wholeNumber, type CommandSpec, type Options } from '../command-line.js';

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

// The directory's lists (packages/access directory.ts) are keyset pages in the order things were
// made: --limit (default 50, at most 200) and --cursor, the previous page's next_cursor.
const pageOptions = {
  limit: limitOption(DIRECTORY_PAGE.max, DIRECTORY_PAGE.default),
  cursor: id("the previous page's next_cursor"),
  table: TABLE,
};
const pageOf = (options: Options) => ({
  limit: wholeNumber(options, 'limit', { min: 1, max: DIRECTORY_PAGE.max }) ?? DIRECTORY_PAGE.default,
  cursor: optional(options, 'cursor'),
});

export const personList: CommandSpec = {
  name: 'person list',
  args: '[--limit N] [--cursor C] [--table]',
  summary: 'persons in the order they were added: {persons: [{id, name, admin, identities, created_at}], next_cursor}',
  options: pageOptions,
  run: async (options, { services }) => services.listPersons(OPERATOR, pageOf(options)),
};

export const collectionList: CommandSpec = {
  name: 'collection list',
  args: '[--limit N] [--cursor C] [--table]',
  summary: 'collections in the order they were made: {collections: [{id, title, publication, created_at}], next_cursor}',
  options: pageOptions,
  run: async (options, { services }) => services.listCollections(OPERATOR, pageOf(options)),
};
