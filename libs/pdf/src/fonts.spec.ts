import * as path from 'path';
import { PdfJob } from './pool/pdf-jobs';
import { PdfPool } from './pool/pdf-pool';

const PROBE: PdfJob<null, { installed: boolean; shared: boolean; parses: number }> = {
  id: 'test.font-cache',
  version: 1,
  filename: path.join(__dirname, 'testing', `font-cache.handler${path.extname(__filename)}`),
};

describe('fonts', () => {
  jest.setTimeout(90_000);

  it('are parsed once per worker and shared by every document it renders, not parsed again per PDF', async () => {
    const pool = new PdfPool({ threads: 1, warmUpFile: PROBE.filename });
    try {
      const probe = await pool.run(PROBE, null);
      expect(probe.installed).toBe(true);
      expect(probe.shared).toBe(true);
      // Regular and bold at most, however many documents.
      expect(probe.parses).toBeLessThanOrEqual(2);
    } finally {
      await pool.close();
    }
  });
});
