import { PDFDocument } from 'pdf-lib';
import { signDocument } from '../../../evidence/src/sign-pdf';
import { extendPades } from '../../../evidence/src/pades-ltv';
import { withRevocationMemo } from '../../../evidence/src/revocation-check';
import { asSigningUnavailable } from './signing-unavailable';
import { drawValues, flattenForm } from '../draw-values';
import { stampDocument } from '../stamp-pdf';
import { jobPhase } from './thread-cpu';
import { bytes, type BuildFinalJobInput, type Bytes } from './pdf-jobs';

/**
 * The final PDF: every signature and seal stamped into its field, every value drawn into its
 * field and any form of the original flattened, then the PAdES signature. The original is parsed
 * once and written once (stamping and signing share the loaded document).
 */
export default async function buildFinalJob(input: BuildFinalJobInput): Promise<Bytes> {
  const doc = await jobPhase('stamp', async () => {
    const loaded = await PDFDocument.load(bytes(input.original), { updateMetadata: false });
    if (input.stamps.length) await stampDocument(loaded, input.stamps.map((s) => ({ ...s, image: bytes(s.image) })));
    if (input.values?.length) await drawValues(loaded, input.values);
    flattenForm(loaded);
    return loaded;
  });
  try {
    // One revocation answer per certificate for the whole job (revocation-check.ts).
    return await withRevocationMemo(async () => {
      const signed = await jobPhase('sign', () => signDocument(doc, { ...input.sign, p12: input.sign.p12 ? bytes(input.sign.p12) : undefined }));
      const { tsaUrl, level } = input.sign;
      // B-LT / B-LTA: validation data and a document timestamp, each in an incremental update.
      if (!tsaUrl || (level !== 'B-LT' && level !== 'B-LTA')) return signed;
      return jobPhase('ltv', () => extendPades(signed, { tsaUrl, level }));
    }, input.sign.revocation_sources);
  } catch (error) {
    throw asSigningUnavailable(error);
  }
}
