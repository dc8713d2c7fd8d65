import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI } from './__tests__/run-cli.js';
import { commandHelp, COMMANDS, groupHelp, parseCommandLine, USAGE } from './commands.js';

// Issue 39 (CLI): `--help` for every group and every command. The cases are the command table
// itself, so a command added without a summary, or an option without its help, fails here. Each
// is parsed in this process (main.ts prints what parsing found to be help, and exits 0: a few
// calls of the built CLI below show that path); 48 processes took minutes on a loaded machine.
const groups = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

/** What main.ts prints for a command line that asks for help, or undefined if it is no help. */
function helpFor(args: string[]): string | undefined {
  const { command, help, group } = parseCommandLine(args);
  if (!help) return undefined;
  return command ? commandHelp(command) : group ? groupHelp(group) : USAGE;
}

/** The built CLI as a user runs it, without a database (help needs none): exit code and stdout. */
async function inntak(...args: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LOG_LEVEL: 'error' };
  try {
    return { code: 0, out: (await promisify(execFile)(process.execPath, [CLI, ...args], { env })).stdout };
  } catch (err) {
    const failure = err as { code: number; stdout: string };
    return { code: failure.code, out: failure.stdout };
  }
}

describe('inntak <command> --help', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s --help is its usage, summary and every option with its help', (name, command) => {
    expect(command.summary.trim()).not.toBe('');
    const out = helpFor([...name.split(' '), '--help'])!;
    expect(out.startsWith(`inntak ${`${name} ${command.args}`.trim()}\n`)).toBe(true);
    expect(out).toContain(command.summary);
    for (const [option, spec] of Object.entries(command.options)) {
      expect(spec.help.trim()).not.toBe('');
      expect(out).toContain(`  --${option}`);
      expect(out).toContain(spec.help);
    }
    expect(out).toContain('  --help');
    expect(helpFor([...name.split(' '), '-h'])).toBe(out);
  });

  it('the built CLI prints a command’s help and exits 0, also after options', async () => {
    expect(await inntak('webhook', 'add', '--help')).toEqual({ code: 0, out: `${helpFor(['webhook', 'add', '--help'])}\n` });
    expect(await inntak('person', 'list', '--limit', '5', '-h')).toEqual({ code: 0, out: `${helpFor(['person', 'list', '--help'])}\n` });
  });
});

describe('inntak <group> --help', () => {
  it('the groups are the first words of the table’s commands', () => {
    expect(groups).toEqual(expect.arrayContaining(['person', 'collection', 'webhook', 'member', 'orchestration', 'publication', 'ab', 'media', 'secrets']));
  });

  it.each(groups)('%s --help lists every command of the group with its summary', (group) => {
    const out = helpFor([group, '--help'])!;
    expect(out.startsWith(`inntak ${group} <command>\n`)).toBe(true);
    for (const command of COMMANDS.filter((c) => c.name.startsWith(`${group} `))) {
      expect(out).toContain(`  inntak ${`${command.name} ${command.args}`.trim()}\n      ${command.summary}`);
    }
  });

  it('the built CLI prints a group’s help and inntak --help (every command) and exits 0', async () => {
    expect(await inntak('collection', '--help')).toEqual({ code: 0, out: `${helpFor(['collection', '--help'])}\n` });
    const all = await inntak('--help');
    expect(all.code).toBe(0);
    for (const command of COMMANDS) expect(all.out).toContain(`  inntak ${`${command.name} ${command.args}`.trim()}\n`);
  });
});

describe('a command whose database does not answer', () => {
  it('exits 1 naming DATABASE_URL, on stdout as {"error"}', async () => {
    const { code, out } = await inntak('person', 'list');
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({ error: expect.stringMatching(/^DATABASE_URL \(postgres:\/\/nobody@127\.0\.0\.1:1\/none\): the database does not answer/) });
  });
});
