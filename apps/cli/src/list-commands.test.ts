import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CLI } from './__tests__/run-cli.js';
import { createCollection, createPerson } from '@inntak/access';

// Issue 39 (CLI): a group without its command, the list commands, --table, webhook delete.
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

/** The exit code, stdout as text (a help or a table is not JSON) and stderr. */
async function inntakText(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' } });
    return { code: 0, out: stdout, err: stderr };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: failure.stdout, err: failure.stderr };
  }
}

async function inntak(...args: string[]): Promise<{ code: number; out: unknown }> {
  const { code, out } = await inntakText(...args);
  return { code, out: JSON.parse(out) as unknown };
}

// Every group's and command's --help: help.test.ts.
describe('inntak <group> without a command', () => {
  it('a group without a command exits 2 naming the commands it has', async () => {
    expect(await inntak('webhook')).toEqual({
      code: 2,
      out: { error: '«webhook» trenger en kommando: add, list, delete, set-template, rotate, end-grace, deliveries, set-secret, rerender, replay; se inntak webhook --help' },
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

describe('inntak webhook list', () => {
  it('pages with --limit and --cursor: stdout stays the JSON list, stderr names the next page; --table ends with it; --limit 201 exits 2', async () => {
    const pages = await createCollection(storesOn(h.db).graph, { title: 'Sider', ownerId: owner });
    const before = JSON.parse((await inntakText('webhook', 'list')).out) as { id: string }[];
    for (let i = 0; i < 3; i++) expect((await inntak('webhook', 'add', '--collection', pages.id)).code).toBe(0);
    const all = JSON.parse((await inntakText('webhook', 'list')).out) as { id: string; collection_id: string }[];
    expect(all.slice(0, before.length)).toEqual(before);
    const made = all.slice(before.length).map((w) => w.id);
    expect(made).toHaveLength(3);
    const first = await inntakText('webhook', 'list', '--limit', String(before.length + 1));
    const firstIds = (JSON.parse(first.out) as { id: string }[]).map((w) => w.id);
    expect(firstIds.at(-1)).toBe(made[0]);
    expect(first.err).toBe(`neste side: --cursor ${made[0]}\n`);
    const last = await inntakText('webhook', 'list', '--cursor', made[0]!);
    expect([(JSON.parse(last.out) as { id: string }[]).map((w) => w.id), last.err]).toEqual([made.slice(1), '']);
    const table = await inntakText('webhook', 'list', '--table', '--cursor', made[0]!, '--limit', '1');
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^signature_scheme +id +title +token +template_id +collection_id +created_at +url$/);
    expect(lines.slice(2)).toEqual([expect.stringMatching(new RegExp(`^ +${made[1]} `)), `(neste side: --cursor ${made[1]})`]);
    expect((await inntak('webhook', 'list', '--limit', '201')).code).toBe(2);
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

describe('inntak person list and collection list', () => {
  it('person list shows every person to the operator, a page at a time: --limit, then --cursor with the page’s next_cursor', async () => {
    const second = ((await inntak('person', 'add', '--subject', 'andre', '--name', 'Andre')).out as { id: string }).id;
    const first = (await inntak('person', 'list', '--limit', '1')).out as { persons: { id: string }[]; next_cursor: string };
    expect(first).toEqual({ persons: [{ id: owner, name: null, admin: false, identities: [{ issuer: '', subject: 'eier' }], created_at: expect.any(String) }], next_cursor: owner });
    expect((await inntak('person', 'list', '--cursor', first.next_cursor)).out).toEqual({
      persons: [expect.objectContaining({ id: second, name: 'Andre' })],
      next_cursor: null,
    });
    expect((await inntak('person', 'list', '--limit', '201')).code).toBe(2);
    expect((await inntak('person', 'list', '--cursor', 'siste')).code).toBe(2);
  });

  it('collection list --table prints the collections as columns, and says how to get the next page', async () => {
    expect((await inntak('collection', 'add', '--title', 'Andre', '--owner', owner)).code).toBe(0);
    const table = await inntakText('collection', 'list', '--table', '--limit', '1');
    expect(table.code).toBe(0);
    const lines = table.out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^id +title +publication +created_at$/);
    expect(lines[2]).toMatch(new RegExp(`^${collection} +Varsler +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z$`));
    expect(lines.slice(3)).toEqual([`(neste side: --cursor ${collection})`]);
  });
});
