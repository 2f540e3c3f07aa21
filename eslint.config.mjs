// Lint only for mistakes the type checker cannot see: promises nobody awaits, and promises
// handed to callers that ignore them (how the boot crash and lost errors slipped through).
// Style is left to the surrounding code.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // libs/client/src/schema.d.ts is generated (npm run generate:client) and large.
    ignores: ['dist/**', 'libs/client/dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.tmp/**', 'apps/api/assets/*', '!apps/api/assets/signing-page', '!apps/api/assets/editor-page', 'apps/api/assets/signing-page/fonts/**', 'libs/client/src/schema.d.ts'],
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
    // A pg Client or Pool with no 'error' listener ends the process when the server ends its
    // session (issue 33: an API died of 57P01). The running code makes them only through
    // createPostgresPool and ListeningConnection (libs/postgres), which listen; a client checked
    // out of the pool goes through checkoutClient. Tests and benches make their own and listen.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['libs/postgres/src/pool.ts', 'libs/postgres/src/listening-connection.ts', 'libs/postgres/src/checkout.ts', '**/testing/**', '**/*.spec.ts', '**/*.contract-spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name=/^(Client|Pool)$/], NewExpression[callee.property.name=/^(Client|Pool)$/]",
          message: 'Make PostgreSQL connections with createPostgresPool or ListeningConnection (@dojang/postgres): they carry the error listener that keeps the process alive.',
        },
        {
          selector: "CallExpression[callee.property.name='connect'][callee.object.property.name='pool']",
          message: 'Check a client out with checkoutClient/withClient/inTransaction (@dojang/postgres), or add an error listener before anything awaits.',
        },
        {
          // One write path (docs/ARCHITECTURE.md, "One way in"): an event written straight to the
          // store skips the decider, the span and the read-your-writes wait. The one exception,
          // delivery evidence's 'any' append, says so where it is.
          selector: "CallExpression[callee.property.name='append'][callee.object.property.name='events'], CallExpression[callee.property.name='append'][callee.object.name='events']",
          message: 'Write events through the command entry (infra.commands.decide, or DecideCommand in a controller), not the event store.',
        },
      ],
    },
  },
  {
    // The signing page's modules (plain browser JavaScript, bundled by esbuild): linted like the
    // rest, with the types their checkJs project (apps/api/assets/signing-page/tsconfig.json) gives.
    // The field-placement editor's modules the same way (apps/api/assets/editor-page/tsconfig.json).
    files: ['apps/api/assets/signing-page/*.js', 'apps/api/assets/editor-page/*.js'],
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
