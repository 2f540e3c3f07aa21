import { timingSafeEqual } from 'crypto';
import { Infrastructure, publicOrigin } from '@dojang/application';
import { issuedFileUrl } from '../documents/document-sources';

/** How long an issued file URL works: one hour from its issue. */
export const FILE_URL_TTL_SECONDS = 60 * 60;

/** FILE_HOST, else the service's own public origin (PUBLIC_ORIGIN or http://localhost:PORT). */
export function fileHost(infra: Infrastructure): string {
  return infra.config.fileHost ?? publicOrigin(infra);
}

/** A fresh signed, expiring URL for the file's bytes: `<host>/v1/files/<id>/content?expires=…&signature=…`. */
export function issueFileUrl(infra: Infrastructure, fileId: string, now: Date): { url: string; expires_at: string } {
  const expires = Math.floor(now.getTime() / 1000) + FILE_URL_TTL_SECONDS;
  return {
    url: issuedFileUrl(fileHost(infra), fileId, expires, infra.secrets.sign(`${fileId}.${expires}`)),
    expires_at: new Date(expires * 1000).toISOString(),
  };
}

/** True when `signature` is ours for this file and expiry, and the expiry has not passed. */
export function fileUrlValid(infra: Infrastructure, fileId: string, expires: number, signature: string, now: Date): boolean {
  const expected = Buffer.from(infra.secrets.sign(`${fileId}.${expires}`));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
  return expires * 1000 >= now.getTime();
}
