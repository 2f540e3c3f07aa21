import { randomBytes } from 'node:crypto';
import { bool, children, decode, decodeInteger, decodeOid, DerNode, integer, octetString, oid, seq, TAG } from './der';
import { OID, sha256 } from './cades-cms';

/**
 * RFC 3161 client for the signature-time-stamp unsigned attribute (the step
 * from PAdES B-B towards B-T). We check that the token answers *our* request
 * (imprint and nonce); we do not validate the TSA's own signature or chain —
 * that needs a trust list, which belongs to whoever verifies the PDF.
 */

export class TimestampError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampError';
  }
}

export function buildTimestampRequest(imprint: Buffer, nonce: Buffer): Buffer {
  return seq(
    integer(1),
    seq(seq(oid(OID.sha256)), octetString(imprint)),
    integer(nonce),
    // Ask for the TSA certificate inside the token so verifiers can check it offline.
    bool(true),
  );
}

interface TstInfo {
  hashAlgorithm: string;
  hashedMessage: Buffer;
  nonce?: Buffer;
}

/** Reads TSTInfo out of a timestamp token (ContentInfo → SignedData → eContent). */
export function readTstInfo(token: Buffer): TstInfo {
  const [contentType, explicitContent] = children(decode(token));
  if (decodeOid(contentType) !== OID.signedData) throw new TimestampError('token is not CMS SignedData');
  const signedData = children(children(explicitContent)[0]);
  const encap = children(signedData[2]);
  if (decodeOid(encap[0]) !== OID.tstInfo) throw new TimestampError('token does not carry TSTInfo');
  const eContent = children(encap[1])[0];
  const tst = children(decode(eContent.content));
  const imprint = children(tst[2]);
  const hashAlgorithm = decodeOid(children(imprint[0])[0]);
  // After genTime (index 4) come optional accuracy, ordering, nonce: the
  // nonce is the only optional plain INTEGER.
  const nonceNode = tst.slice(5).find((n: DerNode) => n.tag === TAG.INTEGER);
  return { hashAlgorithm, hashedMessage: imprint[1].content, nonce: nonceNode ? decodeInteger(nonceNode) : undefined };
}

const STATUS_TEXT: Record<number, string> = {
  2: 'rejection',
  3: 'waiting',
  4: 'revocation warning',
  5: 'revocation notification',
};

export function parseTimestampResponse(response: Buffer, imprint: Buffer, nonce: Buffer): Buffer {
  let parts: DerNode[];
  try {
    parts = children(decode(response));
  } catch (error) {
    throw new TimestampError(`TSA answered with something that is not a TimeStampResp: ${(error as Error).message}`);
  }
  const statusInfo = children(parts[0]);
  const status = decodeInteger(statusInfo[0]).readUIntBE(0, Math.min(decodeInteger(statusInfo[0]).length, 6));
  if (status !== 0 && status !== 1) {
    throw new TimestampError(`TSA refused the request (status ${status}: ${STATUS_TEXT[status] ?? 'unknown'})`);
  }
  const token = parts[1]?.raw;
  if (!token) throw new TimestampError('TSA granted the request but sent no token');
  const tst = readTstInfo(token);
  if (tst.hashAlgorithm !== OID.sha256 || !tst.hashedMessage.equals(imprint)) {
    throw new TimestampError('timestamp token does not cover this signature');
  }
  if (!tst.nonce || !tst.nonce.equals(decodeInteger(decode(integer(nonce))))) {
    throw new TimestampError('timestamp token nonce does not match the request');
  }
  return Buffer.from(token);
}

export interface TimestampOptions {
  timeoutMs?: number;
}

/** Requests a token over `signatureValue` (RFC 3161 §2.4 via HTTP POST). */
export async function requestTimestampToken(tsaUrl: string, signatureValue: Buffer, options: TimestampOptions = {}): Promise<Buffer> {
  const imprint = sha256(signatureValue);
  const nonce = randomBytes(8);
  let response: Response;
  try {
    response = await fetch(tsaUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/timestamp-query', Accept: 'application/timestamp-reply' },
      body: new Uint8Array(buildTimestampRequest(imprint, nonce)),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
  } catch (error) {
    throw new TimestampError(`TSA ${tsaUrl} unreachable: ${(error as Error).message}`);
  }
  if (!response.ok) throw new TimestampError(`TSA ${tsaUrl} answered HTTP ${response.status}`);
  return parseTimestampResponse(Buffer.from(await response.arrayBuffer()), imprint, nonce);
}
