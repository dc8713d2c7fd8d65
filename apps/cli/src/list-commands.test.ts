import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CLI } from './__tests__/run-cli.js';
import { createCollection, createPerson } from '@inntak/access';

// Issue 39 (CLI): --help of a group, the list commands, --table, webhook delete.
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: string;
let collection: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'Varsler', ownerId: owner })).id;
});
afterAll(() => h.dispose());

/** The exit code and stdout as text (a help or a table is not JSON). */
async function inntakText(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' } });
    return { code: 0, out: stdout };
  } catch (err) {
    const failure = err as { code: number; stdout: string };
    return { code: failure.code, out: failure.stdout };
  }
}

async function inntak(...args: string[]): Promise<{ code: number; out: unknown }> {
  const { code, out } = await inntakText(...args);
  return { code, out: JSON.parse(out) as unknown };
}

describe('inntak <group> --help', () => {
  it.each([
    ['person', 'person add'],
    ['collection', 'collection add'],
    ['webhook', 'webhook delete'],
    ['member', 'member add'],
    ['orchestration', 'orchestration list'],
    ['publication', 'publication list'],
    ['ab', 'ab results'],
    ['media', 'media add'],
    ['secrets', 'secrets rotate'],
  ])('%s --help lists the group’s commands (%s among them) and exits 0', async (group, command) => {
    const { code, out } = await inntakText(group, '--help');
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^inntak ${group} <command>`));
    expect(out).toContain(`  inntak ${command}`);
  });

  it('a group without a command exits 2 naming the commands it has', async () => {
    expect(await inntak('webhook')).toEqual({
      code: 2,
      out: { error: '«webhook» trenger en kommando: add, list, delete, set-template, rotate, end-grace, deliveries, set-secret, rerender; se inntak webhook --help' },
    });
  });
});

describe('inntak webhook delete', () => {
  it('deletes the webhook as the API does; it is gone from webhook list, and a second delete exits 1', async () => {
    const webhook = (await inntak('webhook', 'add', '--collection', collection)).out as { id: string };
    expect(await inntak('webhook', 'delete', '--webhook', webhook.id)).toEqual({ code: 0, out: { id: webhook.id } });
    const listed = (await inntak('webhook', 'list')).out as { id: string }[];
    expect(listed.map((w) => w.id)).not.toContain(webhook.id);
    expect(await inntak('webhook', 'delete', '--webhook', webhook.id)).toEqual({ code: 1, out: { error: `--webhook ${webhook.id} finnes ikke` } });
  });
});

describe('inntak publication list and orchestration list', () => {
  it('publication list shows every publication to the operator, at most --limit of them', async () => {
    for (const slug of ['alfa', 'beta']) expect((await inntak('publication', 'add', '--slug', slug, '--title', slug.toUpperCase(), '--owner', owner)).code).toBe(0);
    const all = (await inntak('publication', 'list')).out as { slug: string }[];
    expect(all.map((p) => p.slug)).toEqual(['alfa', 'beta']);
    expect(((await inntak('publication', 'list', '--limit', '1')).out as unknown[]).length).toBe(1);
    expect((await inntak('publication', 'list', '--limit', '201')).code).toBe(2);
  });

  it('orchestration list names each orchestration with its collection, and --table prints them as columns', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'inntak-lists-')), 'a.yaml');
    writeFileSync(script, 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n');
    const added = (await inntak('orchestration', 'add', '--collection', collection, '--file', script, '--title', 'Merk')).out as { id: string };
    expect((await inntak('orchestration', 'list')).out).toEqual([
      { id: added.id, title: 'Merk', collectionId: collection, collectionTitle: 'Varsler', trigger: 'node.created', enabled: true },
    ]);
    const table = await inntakText('orchestration', 'list', '--table');
    expect(table.code).toBe(0);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +title +collectionId +collectionTitle +trigger +enabled$/);
    expect(lines[2]).toMatch(new RegExp(`^${added.id} +Merk +${collection} +Varsler +node.created +true$`));
  });
});
