import { parseArgs } from 'node:util';
import { AppError, isUuid } from '@inntak/core';
import type { CliServices } from './compose.js';

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

export type OptionSpec = { type: 'string' | 'boolean'; help: string; uuid?: true; multiple?: true };
export type Options = Record<string, string | string[] | boolean | undefined>;

/** What a command that works on the database gets: the operations (compose.ts, their settings bound there) and the shell's. */
export interface CommandContext {
  services: CliServices;
  baseUrl: string;
  /** A line of progress for the person at the shell (stderr; stdout is for the JSON answer). */
  progress?: (line: string) => void;
  log?: (message: string) => void;
  readStdin?: () => Promise<string>;
  /** How long `tts` waits for its job (a worker must be running). */
  waitMs?: number;
}

/**
 * One command: its options and help, and (for the commands that work on the database) `run`:
 * the options parsed, then one call of an operation, as an operator (a system administrator at
 * a shell, OPERATOR) through the same checked writes the API uses. It returns the JSON to print.
 */
export interface CommandSpec {
  name: string;
  args: string;
  summary: string;
  options: Record<string, OptionSpec>;
  run?: (options: Options, context: CommandContext) => Promise<unknown>;
}

export const id = (help: string): OptionSpec => ({ type: 'string', help, uuid: true });

/** For the list commands: main.ts prints their rows as columns instead of JSON (table.ts). */
export const TABLE: OptionSpec = { type: 'boolean', help: 'aligned columns for a person to read, in place of JSON' };

export function commandHelp(command: CommandSpec): string {
  const options = Object.entries(command.options).map(([name, o]) => `  --${name}${o.type === 'string' ? (o.uuid ? ' ID' : ' VALUE') : ''}\n      ${o.help}`);
  return [`inntak ${`${command.name} ${command.args}`.trim()}`, '', `  ${command.summary}`, '', ...options, '  --help\n      this text'].join('\n');
}

export interface ParsedCommand {
  command: CommandSpec | undefined;
  values: Options;
  help: boolean;
  /** `inntak webhook --help`: the first word of several commands, whose help is theirs listed. */
  group?: string;
}

/** The commands whose name starts with the word (`webhook` → webhook add, webhook list, …). */
export function groupOf(commands: readonly CommandSpec[], word: string): CommandSpec[] {
  return commands.filter((c) => c.name.startsWith(`${word} `));
}

export function groupHelp(commands: readonly CommandSpec[], word: string): string {
  const members = groupOf(commands, word);
  const lines = members.map((c) => `  inntak ${`${c.name} ${c.args}`.trim()}\n      ${c.summary}`);
  return [`inntak ${word} <command>`, '', ...lines, '', `\`inntak ${word} <command> --help\` describes one of them.`].join('\n');
}

/**
 * The command is the longest table entry the leading words name; its options are parsed by
 * node:util's parseArgs (strict), and its errors are re-worded for a person at a shell.
 */
export function parseCommandLine(commands: readonly CommandSpec[], argv: readonly string[]): ParsedCommand {
  const words = argv.slice(0, 2).filter((w) => !w.startsWith('-'));
  const command = commands.find((c) => c.name === words.join(' ')) ?? commands.find((c) => c.name === words[0]);
  if (!command) {
    if (words.length === 0 || words[0] === 'help') return { command: undefined, values: {}, help: true };
    const group = words.length === 1 ? groupOf(commands, words[0]!) : [];
    if (group.length > 0) {
      if (argv.includes('--help') || argv.includes('-h')) return { command: undefined, values: {}, help: true, group: words[0] };
      // A group alone is a command line missing its command: say which ones there are.
      throw new UsageError(`«${words[0]}» trenger en kommando: ${group.map((c) => c.name.split(' ')[1]).join(', ')}; se inntak ${words[0]} --help`);
    }
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

export function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string') throw new UsageError(`--${name} mangler`);
  if (value.trim() === '') throw new UsageError(`--${name} kan ikke være tom`);
  return value;
}

export function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

export function wholeNumber(options: Options, name: string, range: { min: number; max: number }): number | undefined {
  const text = optional(options, name);
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < range.min || value > range.max) throw new UsageError(`--${name} må være et helt tall fra ${range.min} til ${range.max}; fikk «${text}»`);
  return value;
}

/** The option's node must exist and be of the kind the option names (a person, a collection…). */
export async function requireKind(context: CommandContext, options: Options, name: string, kind: string): Promise<string> {
  const nodeId = required(options, name);
  const actual = await context.services.nodeKindOf(nodeId);
  if (actual === undefined) throw new CliError(`--${name} ${nodeId} finnes ikke`);
  if (actual !== kind) throw new CliError(`--${name} ${nodeId} er en ${actual}, ikke en ${kind}`);
  return nodeId;
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
