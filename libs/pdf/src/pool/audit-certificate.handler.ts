import { appendPdfs } from '../append-pdfs';
import { renderAuditCertificate } from '../audit-certificate';
import { bytes, type AuditCertificateJobInput, type Bytes } from './pdf-jobs';

/** Renders the audit certificate and appends it to the document's PDF. */
export default async function auditCertificateJob(input: AuditCertificateJobInput): Promise<Bytes> {
  const certificate = await renderAuditCertificate(input.certificate);
  return appendPdfs(bytes(input.base), certificate);
}
