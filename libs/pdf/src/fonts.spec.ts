import * as path from 'path';
import { PdfJob } from './pool/pdf-jobs';
import { PdfPool } from './pool/pdf-pool';
import type { FontCacheProbe } from './testing/font-cache.handler';

const PROBE: PdfJob<{ probe: true }, FontCacheProbe | null> = {
  id: 'test.font-cache',
  version: 1,
  filename: path.join(__dirname, 'testing', `font-cache.handler${path.extname(__filename)}`),
};

describe('fonts', () => {
  jest.setTimeout(90_000);

  it('are parsed once per worker and shared by every document it renders, not parsed again per PDF', async () => {
    const pool = new PdfPool({ threads: 1, warmUpFile: PROBE.filename });
    try {
      const probe = (await pool.run(PROBE, { probe: true }))!;
      expect(probe.installed).toBe(true);
      expect(probe.shared).toBe(true);
      // Regular and bold at most, however many documents.
      expect(probe.parses).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });

  it('shape a word once per worker: later documents reuse it and come out byte for byte the same', async () => {
    const pool = new PdfPool({ threads: 1, warmUpFile: PROBE.filename });
    try {
      const probe = (await pool.run(PROBE, { probe: true }))!;
      expect(probe.reusedWords).toBeGreaterThan(0);
      expect(probe.sameBytesColdAndWarm).toBe(true);
    } finally {
      await pool.close();
    }
  });
});
