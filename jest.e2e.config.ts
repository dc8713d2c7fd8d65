/** @jest-config-loader esbuild-register */
import type { Config } from 'jest';

// `npm run test:e2e`: the published pages in a real browser (Debian's chromium through
// playwright-core), against a real API and PostgreSQL, on the same global setup as `npm test`.
const config: Config = {
  globalSetup: '<rootDir>/test/e2e/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  testTimeout: 60_000,
  displayName: 'e2e',
  rootDir: '.',
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: {
    '^@inntak/([a-z-]+)$': '<rootDir>/packages/$1/src/index.ts',
    '^@inntak/([a-z-]+)/([a-z-]+)$': '<rootDir>/packages/$1/src/$2/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testMatch: ['<rootDir>/test/e2e/**/*.e2e.ts'],
};

export default config;
