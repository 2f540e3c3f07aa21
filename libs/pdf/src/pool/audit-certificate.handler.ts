import { appendPdfs } from '../append-pdfs';
import { renderAuditCertificate } from '../audit-certificate';
import { jobPhase } from './thread-cpu';
import { bytes, type AuditCertificateJobInput, type Bytes } from './pdf-jobs';

/** Renders the audit certificate and appends it to the document's PDF. */
export default async function auditCertificateJob(input: AuditCertificateJobInput): Promise<Bytes> {
  const certificate = await jobPhase('render', () => renderAuditCertificate(input.certificate));
  return jobPhase('append', () => appendPdfs(bytes(input.base), certificate));
}
