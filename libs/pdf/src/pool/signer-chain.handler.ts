import * as pkijs from 'pkijs';
import { readSignedData } from '../../../evidence/src/cades-cms';
import { signatureContents } from '../../../evidence/src/pades-ltv';
import { assertOffMainThread } from '../main-thread-guard';
import { bytes, type Bytes } from './pdf-jobs';

const der = (c: pkijs.Certificate) => Buffer.from(c.toSchema().toBER(false));

/**
 * The certificates the first signature of a PDF (its PAdES signature) carries, the signer's
 * first: which certificate signed a final PDF (the installation's or the organization's own), for
 * the evidence bundle. Null: no readable signature. Scans and parses the whole file: in the pool.
 */
export default async function signerChainJob(input: Bytes): Promise<Uint8Array[] | null> {
  assertOffMainThread('signerChain');
  const [first] = signatureContents(Buffer.from(bytes(input)));
  if (!first) return null;
  const signedData = readSignedData(first);
  const certs = (signedData.certificates ?? []).filter((c): c is pkijs.Certificate => c instanceof pkijs.Certificate);
  const sid = signedData.signerInfos[0]?.sid;
  const isSigner = (c: pkijs.Certificate) =>
    sid instanceof pkijs.IssuerAndSerialNumber && Buffer.from(c.serialNumber.valueBlock.valueHexView).equals(Buffer.from(sid.serialNumber.valueBlock.valueHexView)) && c.issuer.isEqual(sid.issuer);
  const signer = certs.find(isSigner) ?? certs[0];
  if (!signer) return null;
  return [signer, ...certs.filter((c) => c !== signer)].map(der);
}
