import { randomBytes } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { OID, readSignedData, sha256 } from './cades-cms';
import { checkTimestampAuthority } from './revocation-check';

/**
 * RFC 3161 client for the signature-time-stamp unsigned attribute (the step
 * from PAdES B-B towards B-T), on pkijs' TimeStampReq/TimeStampResp/TSTInfo.
 * We check that the token answers *our* request (imprint and nonce) and that the TSA's
 * certificate (and the chain the token carries) is valid now and not revoked where it names
 * revocation sources (revocation-check.ts); whether to trust the TSA's root needs a trust list,
 * which belongs to whoever verifies the PDF.
 */

export class TimestampError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimestampError';
  }
}

const toArrayBuffer = (buf: Buffer | Uint8Array): ArrayBuffer => new Uint8Array(buf).buffer as ArrayBuffer;

/**
 * DER INTEGER from unsigned bytes, minimally encoded: leading zero bytes dropped (a random nonce
 * starts with one 1 time in 256, and OpenSSL-based TSAs refuse such "illegal padding" as a bad
 * request: status 2, rejection), then one 0 put back when the first bit is high, so it does not
 * read as negative.
 */
const unsignedInteger = (bytes: Buffer) => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const magnitude = bytes.subarray(start);
  return new asn1js.Integer({ valueHex: toArrayBuffer(magnitude[0] & 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude) });
};
const integerBytes = (value: asn1js.Integer): Buffer => {
  const bytes = Buffer.from(value.valueBlock.valueHexView);
  return bytes.length > 1 && bytes[0] === 0 ? bytes.subarray(1) : bytes;
};

export function buildTimestampRequest(imprint: Buffer, nonce: Buffer): Buffer {
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(imprint) }),
    }),
    nonce: unsignedInteger(nonce),
    // Ask for the TSA certificate inside the token so verifiers can check it offline.
    certReq: true,
  });
  return Buffer.from(request.toSchema().toBER());
}

export interface TstInfo {
  hashAlgorithm: string;
  hashedMessage: Buffer;
  nonce?: Buffer;
}

/** Reads TSTInfo out of a timestamp token (ContentInfo → SignedData → eContent). */
export function readTstInfo(token: Buffer): TstInfo {
  let signedData: pkijs.SignedData;
  try {
    signedData = readSignedData(token);
  } catch {
    throw new TimestampError('token is not CMS SignedData');
  }
  const encap = signedData.encapContentInfo;
  if (encap.eContentType !== OID.tstInfo || !encap.eContent) throw new TimestampError('token does not carry TSTInfo');
  const tst = pkijs.TSTInfo.fromBER(toArrayBuffer(Buffer.from(encap.eContent.getValue())));
  return {
    hashAlgorithm: tst.messageImprint.hashAlgorithm.algorithmId,
    hashedMessage: Buffer.from(tst.messageImprint.hashedMessage.valueBlock.valueHexView),
    nonce: tst.nonce ? integerBytes(tst.nonce) : undefined,
  };
}

const STATUS_TEXT: Record<number, string> = {
  2: 'rejection',
  3: 'waiting',
  4: 'revocation warning',
  5: 'revocation notification',
};

export function parseTimestampResponse(response: Buffer, imprint: Buffer, nonce: Buffer): Buffer {
  let parsed: pkijs.TimeStampResp;
  try {
    parsed = pkijs.TimeStampResp.fromBER(toArrayBuffer(response));
  } catch (error) {
    throw new TimestampError(`TSA answered with something that is not a TimeStampResp: ${(error as Error).message}`);
  }
  const status = parsed.status.status;
  if (status !== pkijs.PKIStatus.granted && status !== pkijs.PKIStatus.grantedWithMods) {
    throw new TimestampError(`TSA refused the request (status ${status}: ${STATUS_TEXT[status] ?? 'unknown'})`);
  }
  if (!parsed.timeStampToken) throw new TimestampError('TSA granted the request but sent no token');
  const token = Buffer.from(parsed.timeStampToken.toSchema().toBER());
  const tst = readTstInfo(token);
  if (tst.hashAlgorithm !== OID.sha256 || !tst.hashedMessage.equals(imprint)) {
    throw new TimestampError('timestamp token does not cover this signature');
  }
  const expected = integerBytes(unsignedInteger(nonce));
  if (!tst.nonce || !tst.nonce.equals(expected)) {
    throw new TimestampError('timestamp token nonce does not match the request');
  }
  return token;
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
  const token = parseTimestampResponse(Buffer.from(await response.arrayBuffer()), imprint, nonce);
  await checkTimestampAuthority(token, { timeoutMs: options.timeoutMs });
  return token;
}
