import { describe, expect, it } from '@jest/globals';
import { ESLint } from 'eslint';

// The dependency rules (eslint-rules.js) fire on each way a domain package could reach an
// adapter, and on a folder of packages/postgres reaching past another's index.ts.
const eslint = new ESLint({ cwd: process.cwd() });

async function messages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  // Only the dependency rules (and the front doors' import rule): the snippets' unused names are not what is under test.
  return result!.messages.filter((m) => m.ruleId?.startsWith('inntak/') || m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => `${m.ruleId}: ${m.message}`);
}

describe('domain packages import only their own files, node: modules and other domain packages', () => {
  const leaks = [
    "import { sql } from 'kysely';",
    "import { jsonArrayFrom } from 'kysely/helpers/postgres';",
    "import pg from 'pg';",
    "import { openDatabase } from '../../postgres/src/platform/database.js';",
    "import { migrate } from '@inntak/postgres';",
    "import { PostgresGraphStore } from '@inntak/postgres/graph';",
    "import { AppError } from '@inntak/core/dist/errors.js';",
    "import { startTestIssuer } from '@inntak/test-support';",
    "import Postgrator from 'postgrator';",
    "import { jwtVerify } from 'jose';",
    "import express from 'express';",
    "const m = await import('graphile-worker');",
    "export { x } from '../../../apps/api/src/app.js';",
  ];
  for (const line of leaks) {
    it(`refuses ${line}`, async () => {
      expect(await messages('packages/graph/src/leak.ts', line)).toEqual([expect.stringMatching(/^inntak\/domain-imports: /)]);
    });
  }

  it('accepts its own files, node: modules and other domain packages', async () => {
    const code = [
      "import { a } from './types.js';",
      "import { readFileSync } from 'node:fs';",
      "import { AppError } from '@inntak/core';",
      "import { levelGrantedBy } from '@inntak/access';",
      'export const used = [a, readFileSync, AppError, levelGrantedBy];',
    ].join('\n');
    expect(await messages('packages/graph/src/fine.ts', code)).toEqual([]);
  });

  it('tests of domain packages may use jest and fast-check, but not adapters', async () => {
    expect(await messages('packages/graph/src/x.test.ts', "import fc from 'fast-check';\nexport const f = fc;")).toEqual([]);
    expect(await messages('packages/graph/src/x.test.ts', "import { openTestDatabase } from '@inntak/postgres/testing';\nexport const o = openTestDatabase;")).toEqual([
      expect.stringMatching(/^inntak\/domain-imports: /),
    ]);
  });
});

describe('folders of packages/postgres import each other only through their index.ts', () => {
  it('refuses a deep import into another folder', async () => {
    expect(await messages('packages/postgres/src/jobs/leak.ts', "export { readNode } from '../graph/node-reads.js';")).toEqual([
      expect.stringMatching(/^inntak\/postgres-folders: /),
    ]);
  });

  it('accepts the other folder’s index.ts and files of its own folder', async () => {
    const code = "export { readNode } from '../graph/index.js';\nexport { enqueueJob } from './job-store.js';";
    expect(await messages('packages/postgres/src/jobs/fine.ts', code)).toEqual([]);
  });
});

describe('apps only wire: outside the composition root, no database adapter or driver', () => {
  for (const line of ["import { migrate } from '@inntak/postgres';", "import { PostgresWebhookAdminStore } from '@inntak/postgres/intake';", "import { sql } from 'kysely';", "import pg from 'pg';"]) {
    it(`a CLI command refuses ${line}`, async () => {
      expect(await messages('apps/cli/src/commands/leak.ts', line)).toEqual([expect.stringMatching(/^inntak\/app-wiring: /)]);
    });
  }

  for (const line of ["import { readNode } from '@inntak/postgres/graph';", "import { sql } from 'kysely';"]) {
    it(`an API route refuses ${line}`, async () => {
      expect(await messages('apps/api/src/rest/leak.ts', line)).toEqual([expect.stringMatching(/^inntak\/app-wiring: /)]);
    });

    it(`a worker task refuses ${line}`, async () => {
      expect(await messages('apps/worker/src/tasks/leak.ts', line)).toEqual([expect.stringMatching(/^inntak\/app-wiring: /)]);
    });
  }

  it('a driver calls a use case, never a store in its deps', async () => {
    for (const file of ['apps/api/src/rest/leak.ts', 'apps/api/src/console/leak.ts', 'apps/worker/src/tasks/leak.ts', 'apps/cli/src/commands/leak.ts']) {
      expect(await messages(file, 'export const f = (deps: any) => deps.intakeStore.recordFailedDelivery({});')).toEqual([expect.stringMatching(/^inntak\/driver-store-calls: /)]);
      expect(await messages(file, 'export const f = (deps: any) => deps.store.queryNodes();')).toEqual([expect.stringMatching(/^inntak\/driver-store-calls: /)]);
      expect(await messages(file, 'export const f = (deps: any, g: any) => g(deps.store);')).toEqual([]);
    }
  });

  it("the API's front doors do not import each other's code (types may cross)", async () => {
    expect(await messages('apps/api/src/console/leak.ts', "export { CreateVariantBody } from '../rest/publishing-intentions.js';")).toEqual([
      expect.stringMatching(/^@typescript-eslint\/no-restricted-imports: /),
    ]);
    expect(await messages('apps/api/src/console/leak.ts', "export type { JobAdminDeps } from '../rest/job-admin.js';")).toEqual([]);
    expect(await messages('apps/api/src/console/leak.ts', "export { CreateVariantBody } from '../schemas.js';")).toEqual([]);
  });

  it('the composition root, main.ts and tests may import them', async () => {
    for (const file of ['apps/cli/src/compose.ts', 'apps/cli/src/main.ts', 'apps/cli/src/x.test.ts', 'apps/api/src/api-server.ts', 'apps/api/src/main.ts', 'apps/api/src/x.test.ts', 'apps/worker/src/worker.ts', 'apps/worker/src/main.ts']) {
      expect(await messages(file, "import { migrate } from '@inntak/postgres';\nexport const m = migrate;")).toEqual([]);
    }
  });
});
