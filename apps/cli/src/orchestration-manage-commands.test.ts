import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { createCollection, createPerson } from '@inntak/access';

// inntak orchestration update | enable | disable | delete | run | runs | rerun | set-secret (issue 27).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let collection: string;
const dir = mkdtempSync(join(tmpdir(), 'inntak-orchestration-manage-'));

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  const owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'Varsler', ownerId: owner })).id;
});
afterAll(() => h.dispose());

async function inntak(...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  return inntakWith(undefined, ...args);
}

async function inntakWith(stdin: string | undefined, ...args: string[]): Promise<{ code: number; out: Record<string, unknown> }> {
  try {
    const running = promisify(execFile)(process.execPath, [MAIN, ...args], { env: { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' } });
    running.child.stdin!.end(stdin ?? '');
    const { stdout } = await running;
    return { code: 0, out: JSON.parse(stdout) as Record<string, unknown> };
  } catch (err) {
    const failure = err as { code: number; stdout: string; stderr: string };
    return { code: failure.code, out: JSON.parse(failure.stdout || failure.stderr) as Record<string, unknown> };
  }
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('inntak orchestration (managing one)', () => {
  it('update checks the script first; disable, enable, delete', async () => {
    const script = file('a.yaml', 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n');
    const { out } = await inntak('orchestration', 'add', '--collection', collection, '--file', script, '--node-kind', 'content');
    const id = out.id as string;
    const broken = await inntak('orchestration', 'update', '--id', id, '--file', file('b.yaml', 'steps:\n  - action: nope\n'));
    expect(broken.code).not.toBe(0);
    expect(JSON.stringify(broken.out)).toMatch(/linje 2, kolonne 13/);
    const updated = await inntak('orchestration', 'update', '--id', id, '--file', script, '--title', 'Ny');
    expect(updated).toMatchObject({ code: 0, out: { id, steps: 1 } });
    expect(await inntak('orchestration', 'disable', '--id', id)).toEqual({ code: 0, out: { id, enabled: false } });
    expect(await inntak('orchestration', 'enable', '--id', id)).toEqual({ code: 0, out: { id, enabled: true } });
    expect(await inntak('orchestration', 'delete', '--id', id)).toEqual({ code: 0, out: { id, deleted: true } });
    expect((await inntak('orchestration', 'enable', '--id', id)).code).not.toBe(0);
  });

  it('run queues a manual orchestration with its input; runs lists it; set-secret answers only the name', async () => {
    const script = file('m.yaml', 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "{event.input.hva}" }\n');
    const { out } = await inntak('orchestration', 'add', '--collection', collection, '--file', script, '--event', 'manual');
    const id = out.id as string;
    const run = await inntak('orchestration', 'run', '--id', id, '--input', '{"hva": "kaffe"}');
    expect(run).toMatchObject({ code: 0, out: { run_id: expect.any(String), job_id: expect.any(Number) } });
    const runs = await inntak('orchestration', 'runs', '--id', id);
    expect(runs.out.runs).toEqual([expect.objectContaining({ id: run.out.run_id, status: 'queued', event: expect.objectContaining({ input: { hva: 'kaffe' } }) })]);
    expect((await inntak('orchestration', 'run', '--id', id, '--input', '[1]')).code).not.toBe(0);
    const secret = await inntakWith('hemmelig\n', 'orchestration', 'set-secret', '--id', id, '--name', 'TOKEN', '--secret-stdin');
    expect(secret).toEqual({ code: 0, out: { id, name: 'TOKEN' } });
    const stored = await h.db.selectFrom('orchestration_secrets').select('value').where('orchestration_id', '=', id).executeTakeFirstOrThrow();
    expect(stored.value).toBe('hemmelig');
  });
});
