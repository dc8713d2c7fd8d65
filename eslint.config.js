import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import inntak from './eslint-rules.js';

// The dependency rule of the hexagon. Every package under packages/ is a pure domain package
// except the adapters listed here; domain packages import only their own files, node: modules
// and each other (an allow-list: eslint-rules.js). A new adapter package goes in this list.
const ADAPTER_PACKAGES = ['postgres', 'test-support', 'dev-issuer', 'files', 'spool'];
const DOMAIN_PACKAGES = readdirSync('packages', { withFileTypes: true })
  .filter((d) => d.isDirectory() && !ADAPTER_PACKAGES.includes(d.name))
  .map((d) => d.name);

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    plugins: { inntak },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    files: DOMAIN_PACKAGES.map((p) => `packages/${p}/src/**/*.ts`),
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES }] },
  },
  {
    // Tests of domain packages may use the test tools too.
    files: DOMAIN_PACKAGES.flatMap((p) => [`packages/${p}/src/**/*.test.ts`, `packages/${p}/src/__tests__/**/*.ts`]),
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['@jest/globals', 'fast-check'] }] },
  },
  {
    // Orchestration's scripts are YAML, checked with zod: kept libraries that do no I/O. A
    // schedule's cron goes through graphile-worker's own parser (parseCronItem, pure; schedule.ts
    // only), so it is the syntax of apps/worker/crontab (issue 27).
    files: ['packages/orchestration/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['yaml', 'zod', 'graphile-worker'] }] },
  },
  {
    files: ['packages/orchestration/src/**/*.test.ts'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['yaml', 'zod', 'graphile-worker', '@jest/globals', 'fast-check'] }] },
  },
  {
    // The shared kernel's kept libraries (issue 23): uuid's v7() for ids, zod for the config pieces.
    files: ['packages/core/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['uuid', 'zod'] }] },
  },
  {
    files: ['packages/core/src/**/*.test.ts'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['uuid', 'zod', '@jest/globals', 'fast-check'] }] },
  },
  {
    // Job payloads are checked with zod (payloads.ts): a kept library that does no I/O.
    files: ['packages/jobs/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['zod'] }] },
  },
  {
    files: ['packages/jobs/src/**/*.test.ts'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['zod', '@jest/globals', 'fast-check'] }] },
  },
  {
    // Standard Webhooks' own verifier (issue 17 names it): pure, no I/O.
    files: ['packages/intake/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['standardwebhooks'] }] },
  },
  {
    files: ['packages/intake/src/**/*.test.ts'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['standardwebhooks', '@jest/globals', 'fast-check'] }] },
  },
  {
    // Emoji names for Slack's :shortcodes: (templates) and Markdown, feeds for the pages
    // (publishing): kept libraries that do no I/O (issue 25).
    files: ['packages/templates/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['node-emoji'] }] },
  },
  {
    files: ['packages/publishing/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['markdown-it', 'feed'] }] },
  },
  {
    // Media's kept libraries over bytes in memory (issue 28): resampling, sniffing the type of an
    // upload, reading an image's size and an audio file's duration, decoding MP3/FLAC/Opus
    // (WebAssembly). None does I/O of its own.
    files: ['packages/media/src/**/*.ts'],
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: { 'inntak/domain-imports': ['error', { domains: DOMAIN_PACKAGES, extra: ['wave-resampler', 'file-type', 'image-size', 'music-metadata', 'mpg123-decoder', '@wasm-audio-decoders/flac', 'ogg-opus-decoder'] }] },
  },
  {
    files: ['packages/postgres/src/**/*.ts'],
    rules: { 'inntak/postgres-folders': 'error' },
  },
  {
    // Apps only wire: their composition root imports the database adapter, everything else gets
    // operations through deps (issue 23). The API's composition of adapters is api-server.ts
    // (postgresAppDeps) and the worker's worker.ts (startWorker), which tests and benchmarks start
    // them through.
    files: ['apps/cli/src/**/*.ts', 'apps/api/src/**/*.ts', 'apps/worker/src/**/*.ts'],
    ignores: [
      'apps/*/src/main.ts',
      'apps/cli/src/compose.ts',
      'apps/api/src/api-server.ts',
      'apps/worker/src/worker.ts',
      '**/*.test.ts',
      '**/__tests__/**',
    ],
    rules: { 'inntak/app-wiring': 'error', 'inntak/driver-store-calls': 'error' },
  },
  // The API's front doors (rest/, console/, pages/, realtime/) do not import each other's code:
  // what two share lives beside the composition root in apps/api/src (issue 36). Types may cross.
  {
    files: ['apps/api/src/rest/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['../console/*', '../pages/*', '../realtime/*'], allowTypeImports: true, message: 'front doors meet only in the composition root and the shared pieces of apps/api/src' }] }] },
  },
  {
    files: ['apps/api/src/console/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['../rest/*', '../pages/*', '../realtime/*'], allowTypeImports: true, message: 'front doors meet only in the composition root and the shared pieces of apps/api/src' }] }] },
  },
  {
    files: ['apps/api/src/pages/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['../rest/*', '../console/*', '../realtime/*'], allowTypeImports: true, message: 'front doors meet only in the composition root and the shared pieces of apps/api/src' }] }] },
  },
  {
    files: ['apps/api/src/realtime/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['../rest/*', '../console/*', '../pages/*'], allowTypeImports: true, message: 'front doors meet only in the composition root and the shared pieces of apps/api/src' }] }] },
  },
);
