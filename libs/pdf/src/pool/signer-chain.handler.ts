// libs/evidence by relative path: a worker thread resolves no @dojang/* alias.
import { signerChain } from '../../../evidence/src/pades-ltv';
import { bytes, type Bytes } from './pdf-jobs';

/** The pool's `pdf.signer-chain` job: which certificates signed a final PDF (libs/evidence reads the CMS). */
export default async function signerChainJob(input: Bytes): Promise<Uint8Array[] | null> {
  return signerChain(Buffer.from(bytes(input)));
}
