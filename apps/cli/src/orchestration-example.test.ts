import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { planScheduledRuns } from '@inntak/orchestration';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { describeWithEngine } from '@inntak/test-support';
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
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'inntak-orchestration-doc-'));
  h = await openTestDatabase();
  env = { ...process.env, DATABASE_URL: h.url, PORT: String(await freePort()), HOOK_PORT: String(await freePort()), INNTAK_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.BASE_URL;
  delete env.WORKER_CRONTAB;
  started = npmStart({ ...env, INNTAK_DEV_ISSUER: '1', ORCHESTRATION_HTTP_ALLOW: `localhost:${env.HOOK_PORT}` });
  await started.seen('api listening');
  await started.seen('worker started');
}, 180_000);

afterAll(async () => {
  killGroup(started.child);
  await h.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * The crontab's minute without waiting for it (up to two under load): as soon as the example has
 * made its schedule, the worker's planner runs as its crontab task would, with the clock at the
 * minute the schedule is due. The worker then runs what it queued, as it would at that minute;
 * the crontab line itself is apps/worker/src/crontab.test.ts's.
 */
async function planWhenDue(finished: () => boolean): Promise<void> {
  while (!finished()) {
    const schedule = await h.db.selectFrom('orchestration_schedules').select('next_at').executeTakeFirst();
    if (schedule) {
      await planScheduledRuns(new PostgresOrchestrationStore(h.db), schedule.next_at);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}


// The block uses curl and jq, which npm does not install (README, "Optional engines").
describeWithEngine('curl-jq', describe, 'docs/orchestration.md worked example', () => {
  it('is a block that starts like the README (npm start in the background) and ends with kill %1', () => {
    expect(startLine).toBe('npm ci && INNTAK_DEV_ISSUER=1 ORCHESTRATION_HTTP_ALLOW=localhost:${HOOK_PORT:-9099} npm start &   # wait for "api listening"');
    expect(killLine).toMatch(/^kill %1 %2\b/);
  });

  it('works as pasted: a failed build is posted (retried after a 503), a successful one filtered, and the schedule runs', async () => {
    // In this shell the stand-in hook is job %1 (npm start is the test's): it is stopped at the end.
    const script = ['set -euo pipefail', ...rest, 'echo "C=$C"', 'echo "O=$O"', 'kill %1'].join('\n');
    const pasted = promisify(execFile)('bash', ['-c', script], { cwd: REPO_ROOT, env, timeout: 400_000 });
    let done = false;
    void pasted.finally(() => (done = true)).catch(() => {});
    const planned = planWhenDue(() => done);
    const { stdout } = await pasted;
    await planned;
    const lines = stdout.trim().split('\n');
    const orchestration = lines.pop()!.replace('O=', '');
    const collection = lines.pop()!.replace('C=', '');
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([['completed', 'filtered'], { status: 'completed', event: 'schedule' }]);
    const builds = await h.db
      .selectFrom('nodes as n')
      .innerJoin('edges as e', 'e.source_id', 'n.id')
      .select(['n.metadata'])
      .where('e.target_id', '=', collection)
      .where('e.edge_type', '=', 'belongs_to')
      .where('n.node_kind', '=', 'content')
      .execute();
    expect(builds.map((b) => [(b.metadata as { status: string }).status, (b.metadata as { varslet?: number }).varslet]).sort()).toEqual([
      ['failed', 200],
      ['succeeded', undefined],
    ]);
    const log = await h.db.selectFrom('orchestration_log').select(['step', 'status', 'error', 'output']).where('orchestration_id', '=', orchestration).orderBy('id').execute();
    expect(JSON.stringify(log)).not.toContain('hemmelig-token');
    expect(log.filter((r) => r.status === 'skipped')).toEqual([expect.objectContaining({ step: 1, error: expect.stringMatching(/^Filteret slapp ikke hendelsen gjennom/) })]);
  }, 480_000);
});
