import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { freePort, killGroup, npmStart, REPO_ROOT, type Started } from './__tests__/processes.js';

// docs/orchestration.md's worked example, read from the doc and run as a user pastes it from the
// repository root: `npm start` in the background, then every line through bash. Only the
// database differs: this test's own, through DATABASE_URL.
const doc = readFileSync(join(REPO_ROOT, 'docs/orchestration.md'), 'utf8');
const block = /```sh\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('## Worked example')))![1]!.trimEnd().split('\n');
const [startLine, ...rest] = block;
const killLine = rest.pop()!;

let h: OpenTestDatabase;
let started: Started;
let env: NodeJS.ProcessEnv;
const dataDir = mkdtempSync(join(tmpdir(), 'inntak-orchestration-doc-'));

beforeAll(async () => {
  h = await openTestDatabase();
  env = { ...process.env, DATABASE_URL: h.url, PORT: String(await freePort()), INNTAK_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.BASE_URL;
  started = npmStart({ ...env, INNTAK_DEV_ISSUER: '1' });
  await started.seen('api listening');
  await started.seen('worker started');
}, 180_000);

afterAll(async () => {
  killGroup(started.child);
  await h.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('docs/orchestration.md worked example', () => {
  it('is a block that starts like the README (npm start in the background) and ends with kill %1', () => {
    expect(startLine).toBe('npm ci && INNTAK_DEV_ISSUER=1 npm start &   # wait for "api listening"');
    expect(killLine).toMatch(/^kill %1\b/);
  });

  it('works as pasted: the push is copied to Arkiv, and the log shows both steps ok', async () => {
    const { stdout } = await promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...rest, 'echo "C=$C"'].join('\n')], { cwd: REPO_ROOT, env, timeout: 200_000 });
    const lines = stdout.trim().split('\n');
    const collection = lines.pop()!.replace('C=', '');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      { step: 2, action: 'set_metadata', status: 'ok' },
      { step: 1, action: 'create_node', status: 'ok' },
    ]);
    const pushed = await h.db
      .selectFrom('nodes as n')
      .innerJoin('edges as e', 'e.source_id', 'n.id')
      .select(['n.id', 'n.title', 'n.metadata'])
      .where('e.target_id', '=', collection)
      .where('e.edge_type', '=', 'belongs_to')
      .where('n.node_kind', '=', 'content')
      .executeTakeFirstOrThrow();
    const copy = await h.db.selectFrom('nodes').select('title').where('id', '=', (pushed.metadata as { arkivert_som: string }).arkivert_som).executeTakeFirstOrThrow();
    expect(copy.title).toBe(`Sett: ${pushed.title}`);
  }, 240_000);
});
