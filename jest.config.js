/** One jest config for unit, contract, end-to-end and browser tests. */
const { projectionPluginDirs } = require('./scripts/projection-plugin-dirs');

const paths = {
  '^@dojang/([^/]+)/(.*)$': '<rootDir>/libs/$1/src/$2',
  '^@dojang/([^/]+)$': '<rootDir>/libs/$1/src',
};
module.exports = {
  testEnvironment: 'node',
  rootDir: __dirname,
  // Plus the folders of the PROJECTIONS plugin modules, wherever they are (docs/EXTENDING.md §2):
  // `PROJECTIONS=../reports/x.ts npx jest ../reports` runs a plugin's specs with @dojang/* mapped.
  roots: [...new Set(['<rootDir>/libs', '<rootDir>/apps', '<rootDir>/test', '<rootDir>/examples', ...projectionPluginDirs()])],
  testRegex: '.*\\.(spec|e2e-spec|contract-spec|browser-spec)\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: paths,
  // A hang guard, not a speed check: CI's loaded run had tests of 0.3–0.5 s on a quiet machine pass
  // 60 s (two Idempotency-Key specs, while another file's processes saturated both cores).
  testTimeout: 120000,
  maxWorkers: 2,
  // Longest files first, also on a fresh clone whose jest cache is empty (CI): see the sequencer.
  testSequencer: '<rootDir>/test/support/duration-sequencer.js',
  // A worker is replaced once a test file leaves its heap above this much. Each file runs in a
  // new vm context with its own module registry (Nest, pdfmake, fonts), and over a whole run a
  // worker grew to 2–2.7 GB; ending such a process took over the 500 ms jest allows ("a worker
  // process has failed to exit gracefully"), though it had no open handle left: its JS 'exit' came
  // within 3 ms, the process was gone 170–260 ms later at 0.7–1.1 GB and longer at 2.7 GB.
  workerIdleMemoryLimit: '600MB',
  globalSetup: '<rootDir>/test/support/jest-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.ts',
  // The domain's field patterns need V8's linear-time RegExp engine, as every server process has it.
  setupFiles: ['<rootDir>/libs/application/src/linear-regexp.ts'],
};
