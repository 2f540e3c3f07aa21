import { appendSignatureBlock, type SignatureBlock, type SignatureBlockInput } from '../signature-placement';

/** Lays the body out to find where the recipient's signature box goes (POST /signature_requests). */
export default function placeSignatureJob(input: SignatureBlockInput): Promise<SignatureBlock> {
  return appendSignatureBlock(input);
}
