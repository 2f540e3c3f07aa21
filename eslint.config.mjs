// Lint only for mistakes the type checker cannot see: promises nobody awaits, and promises
// handed to callers that ignore them (how the boot crash and lost errors slipped through).
// Style is left to the surrounding code.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', '.tmp/**', 'apps/api/assets/**'],
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
);
