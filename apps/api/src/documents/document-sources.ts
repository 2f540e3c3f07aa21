import { BodyRef } from '@dojang/domain';
import { ReadDoc } from '@dojang/read-store';

/** Read-model collections a document body may come from (written by the files and templates slices). */
export { FILES, type FileRow } from '@dojang/projections';
export const TEMPLATES = 'templates';

export interface TemplateRow extends ReadDoc {
  organization_id: string;
  livemode: boolean;
  name: string;
  content_blob?: BodyRef;
  /** Rows projected before bodies moved to the blob store. */
  content?: string;
  version?: number;
  archived?: boolean;
  created_at: string;
}

/** `<host>/v1/files/<file_id>/content?expires=<epoch seconds>&signature=<hmac>` */
export function parseIssuedFileUrl(url: string): { file_id: string; expires: number; signature: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const match = /^\/(?:api\/)?v1\/files\/(file_[A-Za-z0-9]{8,64})\/content$/.exec(parsed.pathname);
  const expiresParam = parsed.searchParams.get('expires') ?? '';
  const signature = parsed.searchParams.get('signature');
  // Number('') is 0: insist on digits so a missing expiry is not read as the epoch.
  if (!match || !/^\d{1,12}$/.test(expiresParam) || !signature) return null;
  return { file_id: match[1], expires: Number(expiresParam), signature };
}

export function issuedFileUrl(host: string, fileId: string, expires: number, signature: string): string {
  return `${host.replace(/\/$/, '')}/v1/files/${fileId}/content?expires=${expires}&signature=${encodeURIComponent(signature)}`;
}
