import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

/**
 * /openapi.json through a third-party tool: Redocly CLI's `recommended` ruleset (npm
 * @redocly/cli, run from node_modules) finds no error, so generated clients and documentation
 * tools take the document as it is.
 */
const REDOCLY = join(dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json')), 'bin/cli.js');

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer?: string }>;
}

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

/** Redocly's JSON report of the document. It exits 1 when it finds errors: the report says which. */
async function lint(document: unknown): Promise<{ totals: { errors: number; warnings: number }; problems: Problem[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'inntak-redocly-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    // Nothing leaves the machine: no usage data (REDOCLY_TELEMETRY), no update check against the
    // npm registry (REDOCLY_SUPPRESS_NOTIFICATIONS). The temporary directory as the working
    // directory keeps any redocly.yaml of the checkout out of the ruleset.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' };
    const args = [REDOCLY, 'lint', '--extends=recommended', '--format=json', '--max-problems=1000', file];
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 }, (error, out, err) => {
        if (error && error.code !== 1) reject(new Error(`redocly failed (${String(error.code)}): ${err}`));
        else resolve(out);
      });
    });
    return JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: Problem[] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const describeProblem = (p: Problem) => `${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`;

/**
 * The warnings the document keeps, each because it states the truth. Any other kind of warning
 * fails the test: fix it, or add it here with its reason.
 */
const ACCEPTED_WARNINGS: Record<string, string> = {
  'operation-2xx-response': 'the console forms, its login steps and /pub/{slug}/t/{id} answer only a redirect (302, 303)',
  'operation-4xx-response': '/health, /health/ready and /openapi.json have no client error',
  'no-required-schema-properties-undefined': "zod's record over an enum (GET /admin/jobs counts) names its keys in propertyNames, which the rule does not read",
  'info-license': 'the service is not published under a licence',
};

describe('/openapi.json and Redocly CLI', () => {
  it('the recommended ruleset finds no error in the document, and only the warnings accepted below', async () => {
    const res = await request(ctx.app()).get('/openapi.json');
    expect(res.status).toBe(200);
    const report = await lint(res.body);
    expect(report.problems.filter((p) => p.severity === 'error').map(describeProblem)).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(report.problems.filter((p) => p.severity === 'warn' && !(p.ruleId in ACCEPTED_WARNINGS)).map(describeProblem)).toEqual([]);
  }, 60_000);
});
