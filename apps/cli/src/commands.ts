import { groupHelp as groupHelpOf, parseCommandLine as parseWith, type CommandContext, type CommandSpec, type Options, type ParsedCommand } from './command-line.js';
import type { CliDatabase } from './compose.js';
import {
  orchestrationAdd,
  orchestrationDelete,
  orchestrationDisable,
  orchestrationEnable,
  orchestrationRerun,
  orchestrationRun,
  orchestrationRuns,
  orchestrationSetSecret,
  orchestrationUpdate,
} from './commands/orchestration.js';
import { collectionAdd, memberAdd, personAdd } from './commands/people.js';
import { mediaAdd, prune, tts } from './commands/media.js';
import { abEvaluate, abResults, publicationAdd, publish } from './commands/publishing.js';
import { migrate, secretsRotate, start, templates, token } from './commands/system.js';
import { collectionList, orchestrationList, personList, publicationList } from './commands/lists.js';
import { webhookAdd, webhookDelete, webhookDeliveries, webhookEndGrace, webhookList, webhookRerender, webhookRotate, webhookSetSecret, webhookSetTemplate } from './commands/webhooks.js';
import { webhookReplay } from './commands/webhook-replay.js';

export { CliError, UsageError, commandHelp, describeFailure, required, type CommandSpec, type Options } from './command-line.js';

/**
 * Every command, its options and its help: one table for parsing, validation and --help. Each
 * entry lives in commands/<area>.ts; those with `run` parse their options and make one call of
 * an operation (compose.ts binds them to the database).
 */
export const COMMANDS: readonly CommandSpec[] = [
  start,
  migrate,
  personAdd,
  personList,
  collectionAdd,
  collectionList,
  webhookAdd,
  webhookList,
  webhookDelete,
  webhookSetTemplate,
  webhookRotate,
  webhookEndGrace,
  webhookDeliveries,
  webhookSetSecret,
  webhookRerender,
  webhookReplay,
  memberAdd,
  token,
  orchestrationAdd,
  orchestrationList,
  orchestrationUpdate,
  orchestrationEnable,
  orchestrationDisable,
  orchestrationDelete,
  orchestrationRun,
  orchestrationRerun,
  orchestrationRuns,
  orchestrationSetSecret,
  publicationAdd,
  publicationList,
  publish,
  abEvaluate,
  abResults,
  templates,
  tts,
  mediaAdd,
  prune,
  secretsRotate,
];

export const USAGE = `inntak — webhooks into a graph

${COMMANDS.map((c) => `  inntak ${`${c.name} ${c.args}`.trim()}\n      ${c.summary}`).join('\n')}

\`inntak <command> --help\` describes a command. Every command prints JSON on stdout; errors are
{"error": "..."} with exit code 2 for a mistake in the command line and 1 for a failure. Without
DATABASE_URL an embedded PostgreSQL under .data/ is used (shared with a running \`npm start\`).`;

export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  return parseWith(COMMANDS, argv);
}

export function groupHelp(word: string): string {
  return groupHelpOf(COMMANDS, word);
}

export interface DatabaseCommandDeps extends Omit<CommandContext, 'services'> {
  db: CliDatabase;
}

/** Runs a command that works on the database (tests; main.ts runs `command.run` with its own services). */
export async function runDatabaseCommand(command: string, options: Options, deps: DatabaseCommandDeps): Promise<unknown> {
  const spec = COMMANDS.find((c) => c.name === command);
  if (!spec?.run) throw new Error(`${command} is not a database command`);
  const { db, ...context } = deps;
  // compose.ts (kysely, pg, every adapter) is loaded only when a command needs the database.
  const { cliServices } = await import('./compose.js');
  return spec.run(options, { ...context, services: cliServices(db) });
}
