// Lint only for mistakes the type checker cannot see: promises nobody awaits, and promises
// handed to callers that ignore them (how the boot crash and lost errors slipped through).
// Style is left to the surrounding code.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // libs/client/src/schema.d.ts is generated (npm run generate:client) and large.
    ignores: ['dist/**', 'libs/client/dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.tmp/**', 'apps/api/assets/*', '!apps/api/assets/signing-page', 'apps/api/assets/signing-page/fonts/**', 'libs/client/src/schema.d.ts'],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // Kept whole, checksVoidReturn included: Express 4 and Node's emitters drop the promise an
      // async callback returns, so its rejection is never handled and the request hangs.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // The boot crash loaded adapters with require(), typed any: every require() left says why.
      '@typescript-eslint/no-require-imports': 'error',
    },
  },
  {
    // The signing page's modules (plain browser JavaScript, bundled by esbuild): linted like the
    // rest, with the types their checkJs project (apps/api/assets/signing-page/tsconfig.json) gives.
    files: ['apps/api/assets/signing-page/*.js'],
    languageOptions: {
      parser: tseslint.parser,
      sourceType: 'module',
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      'no-unused-vars': ['error', { args: 'none', caughtErrors: 'none' }],
    },
  },
  {
    // The typed client and the integrator example prove the generated types suffice: no cast,
    // no non-null assertion, no any, no silenced error. Needing one is a contract bug to fix in
    // apps/api/src/openapi, then `npm run generate:client`.
    files: ['examples/integrator/**/*.ts', 'libs/client/**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }],
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-expect-error': true, 'ts-ignore': true, 'ts-nocheck': true, 'ts-check': false }],
    },
  },
);
