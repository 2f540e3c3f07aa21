import { signPdf } from '../sign-pdf';
import { stampPdf } from '../stamp-pdf';
import { bytes, type BuildFinalJobInput, type Bytes } from './pdf-jobs';

/** The final PDF: every signature and seal stamped into its field, then the PAdES signature. */
export default async function buildFinalJob(input: BuildFinalJobInput): Promise<Bytes> {
  const original = bytes(input.original);
  const stamps = input.stamps.map((s) => ({ ...s, image: bytes(s.image) }));
  const stamped = stamps.length ? await stampPdf(original, stamps) : original;
  return signPdf(stamped, { ...input.sign, p12: bytes(input.sign.p12) });
}
