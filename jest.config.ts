/** @jest-config-loader esbuild-register */
import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

// One project per package/app on a shared base: TypeScript through swc as native ESM, and
// workspace packages resolved to their sources so tests never need a build first.
function project(dir: string): Config {
  return {
    displayName: dir.split('/')[1],
    rootDir: `<rootDir>/${dir}`,
    testEnvironment: 'node',
    extensionsToTreatAsEsm: ['.ts'],
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
      ],
    },
    moduleNameMapper: {
      '^@inntak/([a-z-]+)$': '<rootDir>/../../packages/$1/src/index.ts',
      '^@inntak/([a-z-]+)/([a-z-]+)$': '<rootDir>/../../packages/$1/src/$2/index.ts',
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    testMatch: ['<rootDir>/src/**/*.test.ts'],
  };
}

const config: Config = {
  // Most of a test file's time is spent waiting on PostgreSQL, child processes and sockets, not
  // on the CPU: jest's default (one worker fewer than the cores: one on a 2-core machine) left
  // the cores idle. Two workers a core, at most 8 so the test server's connections (default
  // max_connections 100) hold. Measured on 2 cores: the api project 265 s → 94 s.
  maxWorkers: Math.min(8, 2 * availableParallelism()),
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  reporters: ['default', '<rootDir>/test/slowest-suites-reporter.js'],
  // A test's timeout tells a hang, not a speed: generous, so a busy machine (a second suite beside
  // this one, four workers on two cores) does not fail tests that are merely slow (issue 34).
  testTimeout: 120_000,
  projects: [
    'packages/core',
    'packages/graph',
    'packages/access',
    'packages/templates',
    'packages/intake',
    'packages/jobs',
    'packages/media',
    'packages/files',
    'packages/ab-testing',
    'packages/publishing',
    'packages/orchestration',
    'packages/studio',
    'packages/postgres',
    'packages/spool',
    'apps/api',
    'apps/worker',
    'apps/cli',
  ]
    .map(project)
    .concat({
      // Repository-wide rules (dependency rules, schema dump): test/*.test.ts.
      ...project('test'),
      displayName: 'repo',
      moduleNameMapper: {
        '^@inntak/([a-z-]+)$': '<rootDir>/../packages/$1/src/index.ts',
        '^@inntak/([a-z-]+)/([a-z-]+)$': '<rootDir>/../packages/$1/src/$2/index.ts',
        '^(\\.{1,2}/.*)\\.js$': '$1',
      },
      testMatch: ['<rootDir>/*.test.ts'],
    }),
};

export default config;
