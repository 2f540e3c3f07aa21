#!/usr/bin/env node
/**
 * Writes test/support/test-durations.json from a whole run's `jest --json --outputFile=<file>`:
 * each file's duration in seconds, which test/support/duration-sequencer.js uses to start the
 * longest files first on a machine whose jest cache is empty (a fresh clone, CI).
 *   node scripts/record-test-durations.js /tmp/run.json
 */
const fs = require('fs');
const path = require('path');

const [input] = process.argv.slice(2);
if (!input) {
  console.error('usage: node scripts/record-test-durations.js <jest --json output file>');
  process.exit(2);
}
const ROOT = path.resolve(__dirname, '..');
const run = JSON.parse(fs.readFileSync(input, 'utf8'));
const durations = {};
for (const r of run.testResults ?? []) {
  const file = path.relative(ROOT, r.name).split(path.sep).join('/');
  if (file.startsWith('..')) continue;
  durations[file] = Math.round((r.endTime - r.startTime) / 100) / 10;
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
const out = path.join(ROOT, 'test/support/test-durations.json');
fs.writeFileSync(out, `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`${Object.keys(sorted).length} files written to ${path.relative(ROOT, out)}`);
