import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Domain packages know nothing of adapters or apps: the dependency rule of the hexagon.
const DOMAIN_PACKAGES = ['core', 'graph', 'access', 'templates', 'intake', 'jobs', 'media'];
const ADAPTER_IMPORTS = ['@inntak/postgres', '@inntak/api', '@inntak/worker', '@inntak/cli', 'kysely', 'pg', 'express', 'graphile-worker', 'winston', 'socket.io'];

export default tseslint.config(
  { ignores: ['**/dist/**', 'node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
    },
  },
  {
    files: DOMAIN_PACKAGES.map((p) => `packages/${p}/src/**/*.ts`),
    ignores: ['**/*.test.ts', '**/__tests__/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ADAPTER_IMPORTS.map((name) => ({ name, message: 'domain packages must not depend on adapters or apps' })),
          patterns: [{ group: ['**/apps/**', '**/packages/postgres/**'], message: 'domain packages must not depend on adapters or apps' }],
        },
      ],
    },
  },
);
