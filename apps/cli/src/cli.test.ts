import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { findTemplate } from '@inntak/templates';
import { CLI, runCli } from './__tests__/run-cli.js';


let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

/** The exit code and the JSON answer (the tests compare exactly these two). */
async function inntak(...args: string[]) {
  const { code, json } = await runCli<Record<string, unknown> & unknown[]>(args, { ...process.env, DATABASE_URL: h.url, BASE_URL: 'https://inntak.example', LOG_LEVEL: 'error' });
  return { code, json };
}

describe('inntak CLI', () => {
  it('migrate prints the migration report as JSON', async () => {
    const { code, json } = await inntak('migrate');
    expect(code).toBe(0);
    expect(json).toMatchObject({ applied: [] });
  });

  it('person add creates a person with its identity, and --admin marks a system administrator', async () => {
    const { code, json } = await inntak('person', 'add', '--subject', 'kari', '--issuer', 'https://idp.example', '--name', 'Kari', '--admin');
    expect(code).toBe(0);
    const id = json.id as string;
    expect(await h.db.selectFrom('nodes').select(['node_kind', 'title']).where('id', '=', id).executeTakeFirst()).toEqual({ node_kind: 'person', title: 'Kari' });
    expect(await h.db.selectFrom('auth_identities').select(['issuer', 'subject']).where('node_id', '=', id).execute()).toEqual([
      { issuer: 'https://idp.example', subject: 'kari' },
    ]);
    expect(await h.db.selectFrom('system_admins').select('node_id').where('node_id', '=', id).execute()).toHaveLength(1);
  });

  it('collection add gives the owner an owner access row on the collection', async () => {
    const person = (await inntak('person', 'add', '--subject', 'ola')).json.id as string;
    const { code, json } = await inntak('collection', 'add', '--title', 'Varsler', '--owner', person);
    expect(code).toBe(0);
    const rows = await h.db.selectFrom('node_access').select(['subject_id', 'access']).where('object_id', '=', json.id as string).execute();
    expect(rows).toEqual([{ subject_id: person, access: 'owner' }]);
  });

  // The template registry fills in with issue #3; until ci-build exists, setting it is refused.
  (findTemplate('ci-build') ? it : it.skip)('webhook add prints id, token and the intake URL, and stores the template', async () => {
    const person = (await inntak('person', 'add', '--subject', 'per')).json.id as string;
    const collection = (await inntak('collection', 'add', '--title', 'CI', '--owner', person)).json.id as string;
    const { code, json } = await inntak('webhook', 'add', '--collection', collection, '--template', 'ci-build', '--title', 'Bygg');
    expect(code).toBe(0);
    expect(json.url).toBe(`https://inntak.example/api/webhook/${json.token}`);
    const node = await h.db.selectFrom('nodes').selectAll().where('id', '=', json.id as string).executeTakeFirstOrThrow();
    expect(node).toMatchObject({ node_kind: 'webhook', title: 'Bygg', metadata: { token: json.token, template_id: 'ci-build' } });
  });

  it('webhook add refuses a collection that does not exist', async () => {
    const { code, json } = await inntak('webhook', 'add', '--collection', '01900000-0000-7000-8000-0000000000ff');
    expect(code).toBe(1);
    expect(json.error).toContain('finnes ikke');
  });

  it('templates prints the template list as JSON', async () => {
    const { code, json } = await inntak('templates');
    expect(code).toBe(0);
    expect(Array.isArray(json)).toBe(true);
  });

  it('a missing required option exits 2 with a JSON error naming it', async () => {
    const { code, json } = await inntak('person', 'add');
    expect(code).toBe(2);
    expect(json).toEqual({ error: '--subject mangler' });
  });

  it('an unknown command exits 2 with a JSON error', async () => {
    const { code, json } = await inntak('frobnicate');
    expect(code).toBe(2);
    expect(json.error).toContain('frobnicate');
  });
});

describe('bin/inntak.js, the file npm links as `inntak`', () => {
  it('is committed outside dist/ and says to build when dist/ is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inntak-bin-'));
    mkdirSync(join(dir, 'bin'));
    copyFileSync(fileURLToPath(new URL('../bin/inntak.js', import.meta.url)), join(dir, 'bin', 'inntak.js'));
    const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const c = spawn(process.execPath, [join(dir, 'bin', 'inntak.js'), 'templates']);
      let out = '';
      c.stdout.on('data', (chunk) => (out += chunk));
      c.on('close', (code) => resolve({ code, out }));
    });
    rmSync(dir, { recursive: true, force: true });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.out).error).toContain('npm run build');
  });
});

describe('inntak CLI errors: one shape, JSON on stdout, exit 2 for the command line, 1 for failures', () => {
  const usage: Array<[string, string[], RegExp]> = [
    ['an unknown option', ['person', 'add', '--subject', 's', '--sujbect', 't'], /^ukjent valg --sujbect for «person add»/],
    ['an option without its value', ['person', 'add', '--subject'], /^--subject mangler en verdi/],
    ['an option followed by another option instead of its value', ['person', 'add', '--subject', '--name', 'N'], /^--subject mangler en verdi/],
    ['a value given to a switch (--admin=yes)', ['person', 'add', '--subject', 's', '--admin=yes'], /^--admin tar ingen verdi/],
    ['an id that is not a UUID', ['member', 'add', '--collection', 'abc', '--person', '01900000-0000-7000-8000-0000000000ff'], /^--collection må være en UUID/],
    ['a blank subject', ['person', 'add', '--subject', '   '], /^--subject kan ikke være tom/],
    ['an unknown command', ['person', 'remove'], /^ukjent kommando «person remove»/],
    ['a stray argument', ['webhook', 'list', 'all'], /^uventet argument all/],
  ];
  it.each(usage)('%s exits 2 with a plain error', async (_what, args, error) => {
    const { code, json } = await inntak(...args);
    expect(code).toBe(2);
    expect(Object.keys(json)).toEqual(['error']);
    expect(json.error).toMatch(error);
  });

  it('--help on a command describes its options and exits 0', async () => {
    const child = await new Promise<string>((resolve) => {
      const c = spawn(process.execPath, [CLI, 'member', 'add', '--help']);
      let out = '';
      c.stdout.on('data', (chunk) => (out += chunk));
      c.on('exit', () => resolve(out));
    });
    expect(child).toContain('inntak member add --collection ID --person PERSON_ID');
    expect(child).toContain('--access');
  });

  it('checks kinds: a webhook as --person, a person as --collection, a collection as --owner exit 1 naming the kind', async () => {
    const person = (await inntak('person', 'add', '--subject', 'kind-check')).json.id as string;
    const collection = (await inntak('collection', 'add', '--title', 'K', '--owner', person)).json.id as string;
    const webhook = (await inntak('webhook', 'add', '--collection', collection)).json.id as string;
    const before = await h.db.selectFrom('edges').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(await inntak('member', 'add', '--collection', collection, '--person', webhook)).toEqual({ code: 1, json: { error: `--person ${webhook} er en webhook, ikke en person` } });
    expect(await inntak('member', 'add', '--collection', person, '--person', person)).toEqual({ code: 1, json: { error: `--collection ${person} er en person, ikke en collection` } });
    expect(await inntak('collection', 'add', '--title', 'X', '--owner', collection)).toEqual({ code: 1, json: { error: `--owner ${collection} er en collection, ikke en person` } });
    expect(await h.db.selectFrom('edges').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
  });

  it('a missing owner and a duplicate subject exit 1 in plain words', async () => {
    expect(await inntak('collection', 'add', '--title', 'X', '--owner', '01900000-0000-7000-8000-0000000000ff')).toEqual({
      code: 1,
      json: { error: '--owner 01900000-0000-7000-8000-0000000000ff finnes ikke' },
    });
    await inntak('person', 'add', '--subject', 'twice');
    const again = await inntak('person', 'add', '--subject', 'twice');
    expect(again.code).toBe(1);
    expect(again.json.error).toMatch(/^det finnes allerede en person med --subject twice/);
  });

  it('member add never demotes the last owner: the collection keeps its owner', async () => {
    const owner = (await inntak('person', 'add', '--subject', 'only-owner')).json.id as string;
    const collection = (await inntak('collection', 'add', '--title', 'O', '--owner', owner)).json.id as string;
    const { code, json } = await inntak('member', 'add', '--collection', collection, '--person', owner);
    expect(code).toBe(1);
    expect(json.error).toMatch(/^den siste eieren kan ikke fjernes/);
    const rows = await h.db.selectFrom('node_access').select(['subject_id', 'access']).where('object_id', '=', collection).execute();
    expect(rows).toEqual([{ subject_id: owner, access: 'owner' }]);
  });

  it('a second owner may then step down to member', async () => {
    const first = (await inntak('person', 'add', '--subject', 'first-owner')).json.id as string;
    const second = (await inntak('person', 'add', '--subject', 'second-owner')).json.id as string;
    const collection = (await inntak('collection', 'add', '--title', 'T', '--owner', first)).json.id as string;
    expect((await inntak('member', 'add', '--collection', collection, '--person', second, '--access', 'owner')).code).toBe(0);
    expect((await inntak('member', 'add', '--collection', collection, '--person', first)).code).toBe(0);
    const rows = await h.db.selectFrom('node_access').select(['subject_id', 'access']).where('object_id', '=', collection).orderBy('access').execute();
    expect(rows).toEqual(expect.arrayContaining([{ subject_id: first, access: 'member' }, { subject_id: second, access: 'owner' }]));
  });
});

describe('inntak start', () => {
  it('migrates, runs the API and the worker, and exits 0 on SIGTERM after both have stopped', async () => {
    const child = spawn(process.execPath, [CLI, 'start'], {
      env: { ...process.env, DATABASE_URL: h.url, PORT: '0', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const seen = new Set<string>();
    const ready = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const message = (JSON.parse(line) as { message: string }).message;
        seen.add(message);
        if (seen.has('api listening') && seen.has('worker started')) resolve();
      });
    });
    await ready;
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(seen).toContain('api stopped');
    expect(seen).toContain('worker stopped');
  });
});
