/**
 * Jest runs the longest files first so that no worker is left alone with a long file at the end
 * of the run. It knows how long a file takes only from its own cache (a previous run on this
 * machine); a fresh clone, as CI has, has none and falls back to file size, which put 60 s browser
 * specs last and left one worker idle for their whole length. Files without a time of their own
 * take the one recorded here (test/support/test-durations.json, written from a whole run by
 * `node scripts/record-test-durations.js <jest --json output>`).
 */
const path = require('path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.resolve(__dirname, '..', '..');
let recorded = {};
try {
  recorded = require('./test-durations.json');
} catch {
  // No record: the cache and file sizes decide, as jest's own sequencer does.
}

class DurationSequencer extends Sequencer {
  time(test) {
    const own = super.time(test);
    if (own != null) return own;
    const seconds = recorded[path.relative(ROOT, test.path).split(path.sep).join('/')];
    return typeof seconds === 'number' ? seconds * 1000 : undefined;
  }
}

module.exports = DurationSequencer;
