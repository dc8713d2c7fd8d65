import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { sharedKey } from '@inntak/postgres/graph';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runDatabaseCommand, UsageError } from './commands.js';
import { createCollection, createPerson } from '@inntak/access';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const BASE_URL = 'http://inntak.test';
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
let h: OpenTestDatabase;
let owner: string, collection: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner })).id;
});
afterAll(async () => {
  await h.dispose();
});

const run = (command: Parameters<typeof runDatabaseCommand>[0], options: Record<string, string | boolean>) =>
  runDatabaseCommand(command, options, { db: h.db, baseUrl: BASE_URL }) as Promise<Record<string, unknown>>;

async function levelOf(subject: string, object: string) {
  return (await h.db.selectFrom('node_access').select('access').where('subject_id', '=', subject).where('object_id', '=', object).executeTakeFirst())?.access;
}

describe('inntak CLI', () => {
  it('secrets rotate makes a new key and keeps the old one as previous; a key not made yet or not rotatable is a usage error', async () => {
    await expect(run('secrets rotate', { name: 'media_link' })).rejects.toThrow(UsageError);
    const key = sharedKey(h.db, 'media_link');
    const before = await key.current();
    expect(await run('secrets rotate', { name: 'media_link' })).toEqual({ name: 'media_link', rotated: true, previous_accepted_hours: 25 });
    const [current, previous] = await sharedKey(h.db, 'media_link').accepted();
    expect(Buffer.from(previous!)).toEqual(Buffer.from(before));
    expect(Buffer.from(current!)).not.toEqual(Buffer.from(before));
    await expect(run('secrets rotate', { name: 'query_cursor' })).rejects.toThrow(UsageError);
  });

  it('webhook list prints every webhook with its template_id, collection_id and url', async () => {
    const added = await run('webhook add', { collection });
    const list = (await run('webhook list', {})) as unknown as Array<Record<string, unknown>>;
    expect(list).toContainEqual(expect.objectContaining({ id: added.id, template_id: null, collection_id: collection, url: added.url }));
  });

  it('webhook rotate gives a new token and url', async () => {
    const added = await run('webhook add', { collection });
    const rotated = await run('webhook rotate', { webhook: added.id as string });
    expect(rotated.token).not.toBe(added.token);
    expect(rotated.url).toBe(`${BASE_URL}/api/webhook/${rotated.token}`);
  });

  it('webhook rotate --grace keeps the old token accepted that many hours (default 24, 0: none), webhook end-grace ends it now, a bad --grace is a usage error', async () => {
    // The previous tokens still accepted, by their grace in seconds.
    const graces = async (id: string) =>
      (await h.db.selectFrom('webhook_previous_tokens').select(['rotated_at', 'grace_until']).where('webhook_id', '=', id).orderBy('rotated_at').execute())
        .filter((r) => r.grace_until.getTime() > Date.now())
        .map((r) => (r.grace_until.getTime() - r.rotated_at.getTime()) / 1000);
    const added = await run('webhook add', { collection });
    const id = added.id as string;
    await run('webhook rotate', { webhook: id });
    await run('webhook rotate', { webhook: id, grace: '2' });
    await run('webhook rotate', { webhook: id, grace: '0' });
    expect(await graces(id)).toEqual([24 * 3600, 2 * 3600]);
    for (const grace of ['-1', '169', 'en dag', '']) await expect(run('webhook rotate', { webhook: id, grace })).rejects.toThrow(UsageError);
    expect(await run('webhook end-grace', { webhook: id })).toEqual({ webhook_id: id, ended: 2 });
    expect(await graces(id)).toEqual([]);
  });

  it('webhook set-template refuses an unknown template, and --clear takes the template away', async () => {
    const added = await run('webhook add', { collection });
    await expect(run('webhook set-template', { webhook: added.id as string, template: 'no-such-template' })).rejects.toMatchObject({
      code: 'unknown_template',
      detail: 'template_id: no-such-template',
    });
    expect(await run('webhook set-template', { webhook: added.id as string, clear: true })).toMatchObject({ id: added.id, template_id: null });
  });

  it('member add grants member by default, and --access sets another level', async () => {
    const person = (await createPerson(storesOn(h.db).graph, { subject: 'new-member' })).id;
    expect(await run('member add', { collection, person })).toMatchObject({ subject_id: person, object_id: collection, access: 'member' });
    expect(await levelOf(person, collection)).toBe('member');
    await run('member add', { collection, person, access: 'admin' });
    expect(await levelOf(person, collection)).toBe('admin');
  });

  it('member add refuses a level outside the four', async () => {
    await expect(run('member add', { collection, person: owner, access: 'boss' })).rejects.toBeInstanceOf(UsageError);
  });

  it('prints JSON on stdout when run as a program', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN, 'webhook', 'list'], {
      env: { ...process.env, DATABASE_URL: h.url, BASE_URL, LOG_LEVEL: 'error' },
    });
    const list = JSON.parse(stdout) as Array<{ collection_id: string }>;
    expect(list.length).toBeGreaterThan(0);
    expect(list.every((w) => w.collection_id === collection)).toBe(true);
  });
});
