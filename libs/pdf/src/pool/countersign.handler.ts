import { countersignPdf } from '../../../evidence/src/sign-pdf';
import { withRevocationMemo } from '../../../evidence/src/revocation-check';
import { asSigningUnavailable } from './signing-unavailable';
import { bytes, type Bytes, type CountersignJobInput } from './pdf-jobs';

/** The audit version's second signature, over the whole file (certificate included). */
export default async function countersignJob(input: CountersignJobInput): Promise<Bytes> {
  try {
    // One revocation answer per certificate for the job (revocation-check.ts).
    return await withRevocationMemo(() => countersignPdf(bytes(input.pdf), { ...input.sign, p12: input.sign.p12 ? bytes(input.sign.p12) : undefined }), input.sign.revocation_sources);
  } catch (error) {
    throw asSigningUnavailable(error);
  }
}
