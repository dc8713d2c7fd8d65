import { beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI } from './__tests__/run-cli.js';
import { COMMANDS } from './commands.js';

// Issue 39 (CLI): `--help` for every group and every command. The cases are the command table
// itself, so a command added without a summary, or an option without its help, fails here.
const groups = [...new Set(COMMANDS.filter((c) => c.name.includes(' ')).map((c) => c.name.split(' ')[0]!))];

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

/** Every command's and group's help, four calls at a time (one at a time took minutes on a loaded machine). */
const helps = new Map<string, { code: number; out: string }>();
beforeAll(async () => {
  const calls = [...COMMANDS.map((c) => c.name), ...groups, ''].map((words) => [...words.split(' ').filter(Boolean), '--help']);
  const next = calls.entries();
  const worker = async () => {
    for (const [, args] of next) helps.set(args.join(' '), await inntak(...args));
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}, 300_000);
const help = (words: string) => helps.get(`${words} --help`.trim())!;

describe('inntak <command> --help', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s --help prints its usage, summary and every option with its help, and exits 0', (name, command) => {
    expect(command.summary.trim()).not.toBe('');
    const { code, out } = help(name);
    expect(code).toBe(0);
    expect(out.startsWith(`inntak ${`${name} ${command.args}`.trim()}\n`)).toBe(true);
    expect(out).toContain(command.summary);
    for (const [option, spec] of Object.entries(command.options)) {
      expect(spec.help.trim()).not.toBe('');
      expect(out).toContain(`  --${option}`);
      expect(out).toContain(spec.help);
    }
    expect(out).toContain('  --help');
  });

  it('-h is --help, and help after the options is help too', async () => {
    expect(await inntak('webhook', 'add', '-h')).toEqual(await inntak('webhook', 'add', '--help'));
    expect((await inntak('webhook', 'deliveries', '--limit', '5', '--help')).code).toBe(0);
  });
});

describe('inntak <group> --help', () => {
  it('the groups are the first words of the table’s commands', () => {
    expect(groups).toEqual(expect.arrayContaining(['person', 'collection', 'webhook', 'member', 'orchestration', 'publication', 'ab', 'media', 'secrets']));
  });

  it.each(groups)('%s --help lists every command of the group with its summary and exits 0', (group) => {
    const { code, out } = help(group);
    expect(code).toBe(0);
    expect(out.startsWith(`inntak ${group} <command>\n`)).toBe(true);
    for (const command of COMMANDS.filter((c) => c.name.startsWith(`${group} `))) {
      expect(out).toContain(`  inntak ${`${command.name} ${command.args}`.trim()}\n      ${command.summary}`);
    }
  });

  it('inntak --help lists every command', () => {
    const { code, out } = help('');
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(out).toContain(`  inntak ${`${command.name} ${command.args}`.trim()}\n`);
  });
});

describe('a command whose database does not answer', () => {
  it('exits 1 naming DATABASE_URL, on stdout as {"error"}', async () => {
    const { code, out } = await inntak('person', 'list');
    expect(code).toBe(1);
    expect(JSON.parse(out)).toEqual({ error: expect.stringMatching(/^DATABASE_URL \(postgres:\/\/nobody@127\.0\.0\.1:1\/none\): the database does not answer/) });
  });
});
