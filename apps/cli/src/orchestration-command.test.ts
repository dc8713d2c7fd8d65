import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { createCollection, createNode, createPerson } from '@inntak/access';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: string, collection: string;
const dir = mkdtempSync(join(tmpdir(), 'inntak-orchestration-'));

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'Varsler', ownerId: owner })).id;
});
afterAll(() => h.dispose());

async function inntak(...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  return inntakWith({}, ...args);
}

async function inntakWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [MAIN, ...args], { env: { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error', ...env } });
    return { code: 0, out: JSON.parse(stdout) as Record<string, unknown> };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: JSON.parse(failure.stdout || failure.stderr) as Record<string, unknown> };
  }
}

describe('inntak orchestration add', () => {
  it("sets up an orchestration observing the collection, run as its owner: a node created in it queues the job", async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n');
    const { code, out } = await inntak('orchestration', 'add', '--collection', collection, '--file', file, '--node-kind', 'content');
    expect(code).toBe(0);
    expect(out).toMatchObject({ owner_id: owner, steps: 1 });
    const node = await h.db.selectFrom('nodes').select(['node_kind', 'created_by', 'metadata']).where('id', '=', out.id as string).executeTakeFirstOrThrow();
    expect(node).toEqual({ node_kind: 'orchestration', created_by: owner, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'content' } } } });

    const inside = await createNode(storesOn(h.db).graph, { personId: owner, isAdmin: false }, { node_kind: 'content', title: 'Inne', collection_id: collection });
    const runs = await h.db.selectFrom('orchestration_runs').select(['subject_id', 'job_id']).where('orchestration_id', '=', out.id as string).execute();
    expect(runs).toEqual([{ subject_id: inside.id, job_id: expect.any(String) }]);
  });

  it('an invalid script is refused with its line and column, and nothing is saved', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'steps:\n  - action: send_mail\n');
    const before = await h.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').execute();
    const { code, out } = await inntak('orchestration', 'add', '--collection', collection, '--file', file);
    expect(code).toBe(1);
    expect(out.error).toMatch(/^skript: linje 2, kolonne 13: steg 1: action: /);
    expect(await h.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').execute()).toEqual(before);
  });

  it('an unknown --event and a missing file are usage errors', async () => {
    const file = join(dir, 'ok.yaml');
    expect((await inntak('orchestration', 'add', '--collection', collection, '--file', file, '--event', 'node.deleted')).code).toBe(2);
    const missing = await inntak('orchestration', 'add', '--collection', collection, '--file', join(dir, 'nope.yaml'));
    expect(missing).toEqual({ code: 2, out: { error: expect.stringMatching(/kan ikke leses \(ENOENT\)$/) } });
  });
});

describe('orchestrations per person (issue 22, finding 8)', () => {
  it('orchestration add is refused beyond ORCHESTRATIONS_PER_PERSON for the collection owner, and saves nothing', async () => {
    const other = (await createPerson(storesOn(h.db).graph, { subject: 'capped-owner' })).id;
    const place = (await createCollection(storesOn(h.db).graph, { title: 'Begrenset', ownerId: other })).id;
    const file = join(dir, 'cap.yaml');
    writeFileSync(file, 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n');
    const env = { ORCHESTRATIONS_PER_PERSON: '1' };
    expect((await inntakWith(env, 'orchestration', 'add', '--collection', place, '--file', file, '--node-kind', 'content')).code).toBe(0);
    const refused = await inntakWith(env, 'orchestration', 'add', '--collection', place, '--file', file, '--node-kind', 'content');
    expect(refused.code).toBe(1);
    expect(refused.out.error).toMatch(/du har allerede 1 orkestreringer, og det er grensen per person/);
    const theirs = await h.db.selectFrom('nodes').select('id').where('node_kind', '=', 'orchestration').where('created_by', '=', other).execute();
    expect(theirs).toHaveLength(1);
  });
});
