/** The error `type`s, coarse classes a client can branch on. */
export const ERROR_TYPES = ['invalid_request_error', 'authentication_error', 'permission_error', 'idempotency_error', 'rate_limit_error', 'api_error'] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

interface ErrorCodeEntry {
  /** The HTTP status the code is answered with. */
  readonly status: number;
  readonly type: ErrorType;
  readonly description: string;
  /** Raised by the domain or the admin CLI only: no public operation answers with it. */
  readonly internal?: true;
}

const invalid = (status: number, description: string): ErrorCodeEntry => ({ status, type: 'invalid_request_error', description });

/**
 * Every `error.code` the service can answer with, and what it means. `ApiError` takes only these
 * codes (tsc), the domain's codes are checked against this list by error-codes.spec.ts, and the
 * OpenAPI document publishes it as the `ErrorCode` enum and per response the codes it can carry.
 */
export const ERROR_CODES = {
  // Request shape
  missing_parameter: invalid(400, 'A required parameter is absent or empty; error.param names it.'),
  invalid_parameter: invalid(400, 'A parameter has the wrong type, format or range; error.param names it.'),
  invalid_json: invalid(400, 'The request body is not valid JSON.'),
  invalid_request_body: invalid(400, 'The request body could not be read (corrupt encoding, wrong Content-Length, too many form fields).'),
  invalid_request: invalid(400, 'The request was refused by the HTTP layer before reaching the operation.'),
  request_too_large: invalid(413, 'The request body is larger than the operation accepts (JSON: 10 MB).'),
  unsupported_media_type: invalid(415, 'The request body uses a charset or content encoding the service does not read.'),
  resource_not_found: invalid(404, 'No operation at this path and method.'),
  method_not_allowed: invalid(405, 'The path exists but not with this method.'),
  malformed_request: invalid(400, 'The HTTP request could not be parsed (answered before routing).'),
  request_timeout: invalid(408, 'The request took too long to arrive (answered before routing).'),
  request_header_too_large: invalid(431, 'The request line and headers are too large (answered before routing).'),
  concurrent_modification: invalid(409, 'Other requests changed the resource while this one was applied; nothing was written. Retry (Retry-After).'),
  // Authentication, permission, rate limit
  missing_api_key: { status: 401, type: 'authentication_error', description: 'No Authorization header. Send "Authorization: Bearer sk_test_…".' },
  invalid_api_key: { status: 401, type: 'authentication_error', description: 'The key is malformed, unknown or revoked.' },
  invalid_metrics_token: { status: 401, type: 'authentication_error', description: 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN> when the server sets one.' },
  webhook_endpoint_disabled: { status: 409, type: 'invalid_request_error', description: 'The webhook endpoint is disabled; enable it before sending a test event.' },
  webhook_delivery_in_progress: { status: 409, type: 'invalid_request_error', description: 'The delivery is still pending or being attempted; redeliver it once it has finished.' },
  webhook_delivery_not_found: { status: 404, type: 'invalid_request_error', description: 'No such delivery for this webhook endpoint.' },
  invalid_admin_token: { status: 401, type: 'authentication_error', description: 'Operator routes need Authorization: Bearer <ADMIN_TOKEN> (not an API key).' },
  insufficient_permissions: { status: 403, type: 'permission_error', description: 'The key may not do this: auditor keys read documents, their histories and evidence, events and plugin read models, and nothing else.' },
  test_mode_only: { status: 403, type: 'permission_error', description: 'The operation exists for test keys only (the outbox).' },
  rate_limit_error: { status: 429, type: 'rate_limit_error', description: 'Too many requests with this key in the current minute; wait Retry-After seconds.' },
  // Idempotency
  idempotency_key_reused: { status: 400, type: 'idempotency_error', description: 'This Idempotency-Key was used with a different request (method, path or body).' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error', description: 'The first request with this Idempotency-Key is still running; retry after it finishes.' },
  // Not found
  document_not_found: invalid(404, 'No such document for this key (other organizations\' and the other mode\'s documents are not found either).'),
  participant_not_found: invalid(404, 'No such participant on this document.'),
  event_not_found: invalid(404, 'No such event.'),
  extension_not_found: invalid(404, 'No such plugin read endpoint: the projection is not loaded on this server (PROJECTIONS) or does not declare that endpoint.'),
  extension_row_not_found: invalid(404, 'No such row in this plugin read endpoint for this key (other organizations\' and the other mode\'s rows are not found either).'),
  file_not_found: invalid(404, 'No such file, or the signed file URL is wrong or expired.'),
  template_not_found: invalid(404, 'No such template.'),
  bulk_send_not_found: invalid(404, 'No such bulk send.'),
  bulk_send_abandoned: invalid(409, 'No job was started under this bulk send in time (its first attempt failed) and the credits held for it were given back: send it again with a new Idempotency-Key.'),
  bulk_send_not_running: invalid(409, 'The bulk send has completed: there are no rows left to cancel (cancel its documents instead).'),
  bulk_send_invalid_rows: invalid(400, 'A bulk send\'s rows or file are invalid; nothing was recorded or sent. error.param names the first problem (rows[3].employee.phone); dry_run lists every one by row and column.'),
  template_archived: invalid(409, 'The template is archived (DELETE /templates/{id}): it cannot be changed, and no document can be made from it.'),
  seal_not_found: invalid(404, 'No such seal.'),
  webhook_endpoint_not_found: invalid(404, 'No such webhook endpoint.'),
  organization_not_found: invalid(404, 'The key\'s organization no longer exists.'),
  edit_session_invalid: invalid(404, 'The edit session is not valid (mistyped, never issued, or its URL was opened already and this is not the session it made).'),
  edit_session_expired: invalid(410, 'The edit session has ended: its minutes passed, the editor was closed or sent, or the API key that opened it was revoked. Open a new one (POST …/edit_session).'),
  edit_action_not_allowed: { status: 403, type: 'permission_error', description: 'The edit session was opened without this action (actions: save, send, preview).' },
  signing_link_invalid: invalid(404, 'The signing link is not valid (mistyped, or never issued).'),
  signing_link_replaced: invalid(404, 'The signing link was issued but has been replaced by a newer one (the sender corrected the participant, or the signer delegated): it no longer works.'),
  page_not_found: invalid(404, 'The document has no such page.'),
  attachment_not_found: invalid(404, 'No attachment with this id was recorded by a signature on this document (uploads a signature did not name are not part of the record).'),
  // Document state
  document_not_editable: invalid(409, 'The document is no longer a draft: edits, fields and participants are frozen. Cancel it and create a new one.'),
  document_edit_locked: invalid(409, 'The draft is edit-locked; release the lock in the document settings first.'),
  document_not_sent: invalid(409, 'A draft has no signature request to cancel; delete it instead.'),
  document_already_completed: invalid(409, 'A completed document cannot be canceled.'),
  document_not_cancelable: invalid(409, 'The document already ended (declined or expired).'),
  document_not_signable: invalid(409, 'The document is not out for signature: its links accept no actions.'),
  nobody_to_remind: invalid(409, 'No participant is waiting to act.'),
  reminder_cooldown: { status: 429, type: 'rate_limit_error', description: 'A reminder went out recently; wait Retry-After seconds.' },
  resend_cooldown: { status: 429, type: 'rate_limit_error', description: 'This participant\'s signing request was resent recently (at most once every 5 minutes); wait Retry-After seconds.' },
  insufficient_credits: invalid(402, 'A live send needs a free signature left this month or at least 1 credit.'),
  // Signing
  signing_link_inactive: invalid(410, 'The signing request was canceled, declined, expired or deleted; the link no longer works.'),
  document_not_concluded: invalid(409, 'The document has not concluded (completed, declined, canceled or expired): there is nothing to certify yet.'),
  document_not_completed: invalid(409, 'The document is not completed: there is no signed PDF to download through the link yet.'),
  download_expired: invalid(410, 'The signed PDF could be downloaded through this link for 30 days after completion; that time is over. Ask the sender for a copy.'),
  not_your_turn: invalid(409, 'Participants with a lower signing_order must act first.'),
  group_already_signed: invalid(409, 'Another member of this participant\'s signing group already signed for the group: nothing is left for this link to do.'),
  delegation_not_allowed: invalid(409, 'The sender did not allow this participant to delegate signing (allow_delegation), or the participant is already a delegate.'),
  attachment_limit_reached: invalid(409, 'The participant uploaded the most files a signing link takes (20).'),
  participant_already_signed: invalid(409, 'This participant has already signed: they cannot sign again, and a signed participant cannot be corrected.'),
  participant_declined: invalid(409, 'This participant has declined.'),
  participant_cannot_sign: invalid(409, 'A cc participant receives a copy and has nothing to sign or decline.'),
  consent_required: invalid(400, 'consent must be true: explicit consent to sign electronically.'),
  seal_upload_required: invalid(400, 'This seal field accepts an uploaded seal image (seal_image) only.'),
  seal_representative_only: invalid(400, 'Only a participant the sender marked representative may stamp one of the organization\'s seals (seal_id, seal_source organization).'),
  pin_not_required: invalid(409, 'This participant does not sign with an SMS PIN.'),
  pin_not_requested: invalid(409, 'Request a PIN (POST …/pin) before verifying.'),
  pin_resend_cooldown: { status: 429, type: 'rate_limit_error', description: 'A new PIN can be requested after Retry-After seconds.' },
  pin_incorrect: invalid(400, 'The PIN is wrong; the message says how many attempts are left.'),
  pin_expired: invalid(409, 'The PIN expired; request a new one.'),
  pin_locked: invalid(409, 'Too many wrong PINs: this PIN is locked; request a new one.'),
  signing_link_locked: invalid(409, 'Three PINs of this link were locked by wrong attempts: it takes no more PINs until the sender reminds the participant (POST /documents/{id}/remind).'),
  pin_verification_required: invalid(409, 'Verify the SMS PIN (POST …/pin, then …/verify with the PIN) before signing or declining.'),
  // Send preconditions (type invalid_request_error): the code is the first unmet one, the message lists every one
  document_has_no_participants: invalid(400, 'Send: the document has no participants; add one (POST /v1/documents/{id}/participants).'),
  document_has_no_signer: invalid(400, 'Send: only cc participants; add a signer or reviewer.'),
  signer_without_required_field: invalid(400, 'Send: a signer has no required field; place one for them (PUT /v1/documents/{id}/fields).'),
  anchor_not_found: invalid(400, 'A field\'s anchor text (a {{type:name}} placeholder of HTML content, or text of the PDF such as "(인)") is not in the document, or not that many times; error.param names the anchor (fields[2].anchor).'),
  anchor_out_of_page: invalid(400, 'A field placed by its anchor, moved by its offset and sized, would leave the page; error.param names the anchor.'),
  field_overlap: invalid(400, 'A field covers more than half of the area of another on the same page (the smaller one\'s area; touching fields and smaller overlaps pass); error.param names the later field (fields[3]) and the message the one it covers. Anchored fields are checked where their anchors land.'),
  field_page_out_of_range: invalid(400, 'A field is on a page the document does not have (checked at PUT /fields once the page count is known, and at send); error.param names it.'),
  // Field values (POST /v1/signing/{token}/sign)
  field_value_required: invalid(400, 'A required field has no value (or a group has too few boxes checked); error.param is values.<field id>.'),
  field_value_invalid: invalid(400, 'A value does not fit its field (type, length, pattern, range, options, group); error.param is values.<field id> and the message says why.'),
  field_not_found: invalid(400, 'A signing draft names a field that is not this participant\'s (or their signing group\'s); error.param is values.<field id>.'),
  field_not_fillable: invalid(400, 'A signing draft names a field the signer does not fill (a signature or seal, a field the service fills, a read-only field); error.param is values.<field id>.'),
  seal_text_invalid: invalid(400, 'A seal made from a name takes 1 to 10 letters (Hangul, Hanja, Latin letters, digits, spaces and the middle dot), no emoji, symbols, control or direction characters; error.param is text (seal_text when signing).'),
  seal_image_mismatch: invalid(400, 'seal_source made: seal_image is not the seal the server renders from seal_shape and seal_text (POST …/seal_preview).'),
  field_values_too_large: invalid(413, 'The values of one signature (or the prefilled values of PUT /fields) are over 200,000 characters in total.'),
  // Participants and files
  missing_phone: invalid(400, 'A participant with auth sms_pin needs a phone number.'),
  phone_invalid: invalid(400, 'The phone is not a phone number (characters other than digits, + and separators, a wrong length, an unassigned prefix or country code); error.param names it (at send, the message names the participant).'),
  phone_not_mobile: invalid(400, 'The phone is a valid number but not a mobile one (a landline, 070, 1588 대표번호, 050x): SMS, PIN and 알림톡 cannot reach it; error.param names it (at send, the message names the participant recorded with it before the rule).'),
  missing_email: invalid(400, 'A participant with channel email needs an e-mail address.'),
  participant_limit_exceeded: invalid(400, 'A document has at most 50 participants; the message says how many more fit.'),
  unsupported_file_type: invalid(415, 'The upload is not a readable PDF (or, for seals and logos, PNG/JPEG; for attachment fields, a kind the field accepts), judged by its bytes.'),
  invalid_image: invalid(400, 'The image is PNG or JPEG by its bytes but does not decode (truncated or corrupt data) or has more pixels than accepted; error.param names the part.'),
  file_too_large: invalid(413, 'The upload is over the size limit (PDF 20 MB, seal image 1 MB, logo 512 KB, an attachment field its max_bytes, a signing certificate 256 KB).'),
  file_too_complex: invalid(413, 'The uploaded PDF holds more objects than accepted (50,000); the message says how many it has.'),
  // An organization's own signing certificate (PUT /v1/organization/signing_certificate)
  signing_certificate_unsupported_format: invalid(400, 'The file is not a PKCS#12 (.p12/.pfx, DER) this service reads, or its key is not RSA; error.param is p12.'),
  signing_certificate_wrong_password: invalid(400, 'The password does not open the PKCS#12 file; error.param is password.'),
  signing_certificate_no_private_key: invalid(400, 'The PKCS#12 file holds certificates but no private key; error.param is p12.'),
  signing_certificate_key_mismatch: invalid(400, "No certificate in the PKCS#12 file matches its private key; error.param is p12."),
  signing_certificate_expired: invalid(400, 'The certificate has expired; error.param is p12 and the message says when.'),
  signing_certificate_not_yet_valid: invalid(400, 'The certificate is not valid yet; error.param is p12 and the message says from when.'),
  // Service
  service_unavailable: { status: 503, type: 'api_error', description: 'A store is unreachable right now; retry shortly (with the same Idempotency-Key).' },
  write_outcome_unknown: {
    status: 503,
    type: 'api_error',
    description:
      'The store lost the answer to this request\'s write and stayed unreachable while the service checked: it may or may not have been applied. Check the resource before sending it again with a new Idempotency-Key; this key answers the same, so it can never apply twice.',
  },
  signing_unavailable: {
    status: 503,
    type: 'api_error',
    description:
      'The final PDF or the audit version could not be signed because the timestamp authority, an OCSP responder or CRL (PAdES B-LT), the PKCS#11 token or the remote signer is unreachable or refused, or the organization\'s own stored signing key cannot be opened; nothing was recorded. Retry after Retry-After seconds; for the organization\'s key, restore the KEY_ENCRYPTION_KEY it was stored with, upload its certificate again or remove it (DELETE /v1/organization/signing_certificate) to sign with the platform key. A certificate that is revoked, expired or not yet valid is signing_certificate_invalid.',
  },
  signing_certificate_invalid: {
    status: 503,
    type: 'api_error',
    description:
      'The certificate that would sign the final PDF or the audit version (the installation\'s or the organization\'s), or the timestamp authority\'s, is revoked (its OCSP responder or CRL says so), expired or not yet valid; the message names the certificate and the reason. Nothing was signed or recorded. The same request completes once a valid certificate is configured (the operator\'s key, or the organization uploads a valid one or removes its own).',
  },
  not_ready: { status: 503, type: 'api_error', description: 'A store is unavailable or the read models lag too far behind.' },
  document_budget_exceeded: invalid(413, 'The document\'s content is over a per-document budget (images, pages, text to lay out); error.param names the input.'),
  pdf_job_limit_exceeded: invalid(413, 'The PDF work for this request passed the service\'s time or memory limit; nothing was written.'),
  evidence_integrity_failure: { status: 500, type: 'api_error', description: 'A stored file failed its integrity check and was not served; the operator must restore it.' },
  evidence_incomplete: {
    status: 500,
    type: 'api_error',
    description:
      'Evidence the service must hold is gone: a concluded document whose certification (DocumentCertified, Dojang\'s signature over its concluded log) was removed from its log, or a recorded file (a final PDF, an attachment) missing from the blob store. The message names what is missing; nothing was served or certified again. The operator must restore it from a backup.',
  },
  internal_error: { status: 500, type: 'api_error', description: 'Something went wrong on the service side; retry later (with the same Idempotency-Key).' },
  // Raised only by the domain on impossible or administrative paths (ids are generated server side).
  document_exists: { ...invalid(409, 'A document with this id already exists.'), internal: true },
  file_exists: { ...invalid(409, 'A file with this id already exists.'), internal: true },
  seal_exists: { ...invalid(409, 'A seal with this id already exists.'), internal: true },
  template_exists: { ...invalid(409, 'A template with this id already exists.'), internal: true },
  webhook_endpoint_exists: { ...invalid(409, 'A webhook endpoint with this id already exists.'), internal: true },
  organization_exists: { ...invalid(409, 'The organization already exists (admin CLI).'), internal: true },
  owner_exists: { ...invalid(409, 'The organization already has an owner (admin CLI).'), internal: true },
  member_exists: { ...invalid(409, 'A member with this e-mail already exists (admin CLI).'), internal: true },
  api_key_not_found: { ...invalid(404, 'No such API key (admin CLI).'), internal: true },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (code: string): code is ErrorCode => Object.prototype.hasOwnProperty.call(ERROR_CODES, code);

/** The codes a client can receive, in catalogue order. */
export const PUBLIC_ERROR_CODES = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => !('internal' in ERROR_CODES[c]));
