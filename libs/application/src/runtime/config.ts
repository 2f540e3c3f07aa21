import * as fs from 'fs';
import * as path from 'path';
import { X509Certificate } from 'crypto';
import { pemCertificates } from '@dojang/verifier/pades';
import { LOG_LEVELS, LogLevel } from './observability/logger';

export interface AppConfig {
  port: number;
  dataDir: string;
  /** Absolute origin used in signing links and file URLs when the request's own can't be trusted. */
  publicOrigin: string | null;
  fileHost: string | null;
  /** PostgreSQL for all three stores (events, read models, blobs). */
  databaseUrl: string | null;
  /** Connections in this process's PostgreSQL pool. */
  databasePoolSize: number;
  /** How long a production store may take to answer at boot before the process gives up. */
  storeConnectTimeoutMs: number;
  eventStoreUrl: string | null;
  mongoUrl: string | null;
  secretKey: string | null;
  /**
   * KEY_ENCRYPTION_KEY: 32 bytes (base64) encrypting organizations' uploaded signing keys at rest
   * (AES-256-GCM). Null: derived from the server secret (SECRET_KEY or DATA_DIR/secret.key).
   */
  keyEncryptionKey: string | null;
  rateLimitPerMinute: number;
  /** Requests per minute per client address made without a valid API key (401s, public pages; 0: off). */
  unauthenticatedRateLimitPerMinute: number;
  /** Requests per minute to /v1/signing/* per signing token and per client address (0: off). */
  signingRateLimit: { perToken: number; perIp: number };
  /** POST /v1/verify (public PDF verification) per client address per minute, a bucket of its own (0: off). */
  verifyRateLimitPerMinute: number;
  /** How long an uploaded PDF may take to read before it is refused. */
  pdfReadTimeoutMs: number;
  /** Time limit of one PDF job (render, stamp and sign, certificate) in the worker pool. */
  pdfJobTimeoutMs: number;
  /** Heap limit of one PDF job's worker (MB); past it the job is refused. */
  pdfJobMaxHeapMb: number;
  /** PDF worker threads; 0: one per core. */
  pdfPoolThreads: number;
  role: 'all' | 'api' | 'worker';
  /** How long a worker holds a reactor before another may take it over (renewed every third of it). */
  reactorLeaseMs: number;
  /** MESSAGE_CLAIM_MS: how long a message's `sending` claim holds before it is sent once more (default 2 minutes). */
  messageClaimMs: number;
  /** BULK_SEND_PACE_MS: least time between two rows of a bulk send in the worker (default 0: no pause; other reactors take turns between windows). */
  bulkSendPaceMs: number;
  /** BULK_SEND_WINDOW: rows of a bulk send the worker sends at once and records in one append (default 16). */
  bulkSendWindow: number;
  smtpUrl: string | null;
  mailFrom: string;
  twilio: { accountSid: string; authToken: string; from: string; apiBaseUrl: string | null } | null;
  /** SOLAPI: KakaoTalk 알림톡, and SMS/LMS unless SMS_PROVIDER=twilio. */
  solapi: { apiKey: string; apiSecret: string; from: string; apiBaseUrl: string | null } | null;
  /** Which provider sends SMS when both are configured; default solapi (Korean numbers, LMS). */
  smsProvider: 'solapi' | 'twilio';
  webhookAllowPrivateNetworks: boolean;
  /** PAGE_IMAGES_AT_SEND: page images are rendered ahead of the signer, page 1 at send and pages 2–20 once page 1 is asked for (default true; false: each when asked for). */
  pageImagesAtSend: boolean;
  tsaUrl: string | null;
  /**
   * REVOCATION_OCSP_URLS, REVOCATION_CRL_URLS (comma-separated http(s) URLs): revocation sources
   * asked before every signature and timestamp, after the ones a certificate names itself (its
   * AIA/CDP), so a certificate that names none is checked too (libs/pdf revocation-check.ts).
   */
  revocationSources: { ocsp: string[]; crl: string[] };
  /**
   * PADES_LEVEL: how far final PDFs go with a TSA: `B-T` (signature timestamp), `B-LT` (+ DSS with
   * chain and OCSP/CRL data) or `B-LTA` (+ document timestamp; the default with TSA_URL). Without
   * a TSA every final PDF is B-B.
   */
  padesLevel: 'B-B' | 'B-T' | 'B-LT' | 'B-LTA';
  /**
   * ARCHIVE_TIMESTAMP_MARGIN_DAYS (default 90): a completed B-LTA document gets a new document
   * timestamp this many days before its newest timestamp's certificate expires (the archive job).
   */
  archiveTimestampMarginDays: number;
  signingP12: string | null;
  /**
   * VERIFY_TRUST_ANCHORS: a PEM file of the certificates POST /v1/verify (and the verify page)
   * trusts: each signature's chain must reach one (then `trusted: true`), else the signature does
   * not hold. Read and checked once at boot (a missing, unreadable or non-PEM file stops the
   * process naming the variable). Null: no list, and every signature is said to have an
   * "untrusted issuer" plainly. `cli verify` judges with it too when given no --trust.
   */
  verifyTrustAnchors: { file: string; certificates: Buffer[] } | null;
  /**
   * SIGNING_KEY: where the key that signs final PDFs lives when not in a PKCS#12 file: `pkcs11`
   * (SIGNING_PKCS11_MODULE, SIGNING_PKCS11_TOKEN_LABEL or SIGNING_PKCS11_SLOT,
   * SIGNING_PKCS11_KEY_LABEL, SIGNING_PKCS11_PIN_FILE) or `remote` (SIGNING_REMOTE_URL,
   * SIGNING_REMOTE_KEY_ID, SIGNING_REMOTE_TOKEN_FILE); both with SIGNING_CERTIFICATE, a PEM file
   * of the certificate then its chain. Null: the file identity (SIGNING_P12 or the generated one).
   */
  signingKey: SigningKeyConfig | null;
  signingP12Password: string | null;
  /** LOG_LEVEL (pino levels); `silent` under NODE_ENV=test unless LOG_LEVEL says otherwise. */
  logLevel: LogLevel;
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`. */
  metricsToken: string | null;
  /** The worker's own metrics port (ROLE=worker); 0 = none. */
  metricsPort: number;
  /** PROJECTIONS: plugin module paths (comma-separated, resolved from the working directory). */
  projections: string[];
  /** When set, GET /v1/admin/* answers with `Authorization: Bearer <ADMIN_TOKEN>`; unset: 404. */
  adminToken: string | null;
  /** Readiness answers 503 while any projection is more than this many events behind the log. */
  readyMaxLagEvents: number;
  /**
   * READY_MAX_LAG_SECONDS: readiness fails when the oldest event a projection has not applied is
   * older than this (default 30): the projector is frozen or gone even if few events wait.
   */
  readyMaxLagSeconds: number;
}

export type SigningKeyConfig =
  | { kind: 'pkcs11'; module: string; slot: number | null; tokenLabel: string | null; keyLabel: string | null; pinFile: string; certificateFile: string }
  | { kind: 'remote'; url: string; keyId: string; tokenFile: string | null; certificateFile: string };

function required(env: NodeJS.ProcessEnv, name: string, why: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is required ${why}`);
  return value;
}

function signingKeyConfig(env: NodeJS.ProcessEnv): SigningKeyConfig | null {
  const kind = (env.SIGNING_KEY ?? '').toLowerCase();
  if (!kind || kind === 'file') return null;
  if (kind === 'pkcs11') {
    const why = 'with SIGNING_KEY=pkcs11';
    if (!env.SIGNING_PKCS11_TOKEN_LABEL && !env.SIGNING_PKCS11_SLOT) throw new Error(`SIGNING_PKCS11_TOKEN_LABEL or SIGNING_PKCS11_SLOT is required ${why}`);
    return {
      kind,
      module: required(env, 'SIGNING_PKCS11_MODULE', why),
      slot: env.SIGNING_PKCS11_SLOT ? int(env.SIGNING_PKCS11_SLOT, 0) : null,
      tokenLabel: env.SIGNING_PKCS11_TOKEN_LABEL || null,
      keyLabel: env.SIGNING_PKCS11_KEY_LABEL || null,
      pinFile: path.resolve(required(env, 'SIGNING_PKCS11_PIN_FILE', why)),
      certificateFile: path.resolve(required(env, 'SIGNING_CERTIFICATE', why)),
    };
  }
  if (kind === 'remote') {
    const why = 'with SIGNING_KEY=remote';
    return {
      kind,
      url: required(env, 'SIGNING_REMOTE_URL', why),
      keyId: required(env, 'SIGNING_REMOTE_KEY_ID', why),
      tokenFile: env.SIGNING_REMOTE_TOKEN_FILE ? path.resolve(env.SIGNING_REMOTE_TOKEN_FILE) : null,
      certificateFile: path.resolve(required(env, 'SIGNING_CERTIFICATE', why)),
    };
  }
  throw new Error(`SIGNING_KEY=${env.SIGNING_KEY}: expected file, pkcs11 or remote`);
}

function int(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) ? Math.floor(n) : fallback;
}

function logLevel(env: NodeJS.ProcessEnv): LogLevel {
  const asked = env.LOG_LEVEL?.toLowerCase();
  if (asked && (LOG_LEVELS as readonly string[]).includes(asked)) return asked as LogLevel;
  return env.NODE_ENV === 'test' ? 'silent' : 'info';
}

/** A comma-separated list of http(s) URLs; anything else stops the process at boot, naming the variable. */
function urlList(env: NodeJS.ProcessEnv, name: string): string[] {
  const urls = (env[name] ?? '').split(',').map((u) => u.trim()).filter(Boolean);
  for (const url of urls) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(url).protocol);
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`${name}: "${url}" is not an http(s) URL (expected a comma-separated list of them)`);
  }
  return urls;
}

/**
 * VERIFY_TRUST_ANCHORS read at boot: a PEM bundle of one or more certificates, each one that
 * parses. A wrong path or file stops the process here, naming the variable and the file, rather
 * than every verification later saying "untrusted issuer" for a reason nobody sees.
 */
function trustAnchors(env: NodeJS.ProcessEnv): AppConfig['verifyTrustAnchors'] {
  const file = env.VERIFY_TRUST_ANCHORS?.trim();
  if (!file) return null;
  const resolved = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(resolved, 'latin1');
  } catch (error) {
    throw new Error(`VERIFY_TRUST_ANCHORS=${file}: cannot read the file (${(error as Error).message})`);
  }
  const certificates = pemCertificates(text);
  if (!certificates.length) throw new Error(`VERIFY_TRUST_ANCHORS=${file}: no PEM certificate in it (expected one or more -----BEGIN CERTIFICATE----- blocks)`);
  certificates.forEach((der, i) => {
    try {
      new X509Certificate(der);
    } catch (error) {
      throw new Error(`VERIFY_TRUST_ANCHORS=${file}: certificate ${i + 1} of ${certificates.length} is not a readable X.509 certificate (${(error as Error).message})`);
    }
  });
  return { file: resolved, certificates };
}

function padesLevel(env: NodeJS.ProcessEnv): AppConfig['padesLevel'] {
  if (!env.TSA_URL) return 'B-B';
  const asked = (env.PADES_LEVEL ?? '').toUpperCase();
  if (asked === 'B-T' || asked === 'B-LT' || asked === 'B-LTA') return asked;
  if (asked) throw new Error(`PADES_LEVEL=${env.PADES_LEVEL}: expected B-T, B-LT or B-LTA (with TSA_URL)`);
  return 'B-LTA';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const role = env.ROLE === 'api' || env.ROLE === 'worker' ? env.ROLE : 'all';
  return {
    port: int(env.PORT, 3000),
    dataDir: path.resolve(env.DATA_DIR || './data'),
    publicOrigin: env.PUBLIC_ORIGIN || null,
    fileHost: env.FILE_HOST || null,
    databaseUrl: env.DATABASE_URL || null,
    databasePoolSize: int(env.DATABASE_POOL_SIZE, 0) > 0 ? int(env.DATABASE_POOL_SIZE, 0) : 10,
    storeConnectTimeoutMs: int(env.STORE_CONNECT_TIMEOUT_MS, 0) > 0 ? int(env.STORE_CONNECT_TIMEOUT_MS, 0) : 10_000,
    eventStoreUrl: env.EVENTSTORE_URL || null,
    mongoUrl: env.MONGO_URL || null,
    secretKey: env.SECRET_KEY || null,
    keyEncryptionKey: env.KEY_ENCRYPTION_KEY || null,
    rateLimitPerMinute: int(env.RATE_LIMIT_PER_MINUTE, 600),
    unauthenticatedRateLimitPerMinute: int(env.UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE, 300),
    signingRateLimit: { perToken: int(env.SIGNING_RATE_LIMIT_PER_MINUTE, 60), perIp: int(env.SIGNING_IP_RATE_LIMIT_PER_MINUTE, 300) },
    verifyRateLimitPerMinute: int(env.VERIFY_RATE_LIMIT_PER_MINUTE, 20),
    pdfReadTimeoutMs: int(env.PDF_READ_TIMEOUT_MS, 0) > 0 ? int(env.PDF_READ_TIMEOUT_MS, 0) : 5_000,
    pdfJobTimeoutMs: int(env.PDF_JOB_TIMEOUT_MS, 0) > 0 ? int(env.PDF_JOB_TIMEOUT_MS, 0) : 30_000,
    pdfJobMaxHeapMb: int(env.PDF_JOB_MAX_HEAP_MB, 0) > 0 ? int(env.PDF_JOB_MAX_HEAP_MB, 0) : 512,
    pdfPoolThreads: Math.max(0, int(env.PDF_POOL_THREADS, 0)),
    role,
    reactorLeaseMs: int(env.REACTOR_LEASE_MS, 0) > 0 ? int(env.REACTOR_LEASE_MS, 0) : 15_000,
    messageClaimMs: int(env.MESSAGE_CLAIM_MS, 0) > 0 ? int(env.MESSAGE_CLAIM_MS, 0) : 2 * 60_000,
    bulkSendPaceMs: Math.max(0, int(env.BULK_SEND_PACE_MS, 0)),
    bulkSendWindow: Math.min(256, Math.max(1, int(env.BULK_SEND_WINDOW, 16))),
    smtpUrl: env.SMTP_URL || null,
    mailFrom: env.MAIL_FROM || 'Dojang <no-reply@dojang.local>',
    twilio:
      env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN && env.TWILIO_FROM
        ? { accountSid: env.TWILIO_ACCOUNT_SID, authToken: env.TWILIO_AUTH_TOKEN, from: env.TWILIO_FROM, apiBaseUrl: env.TWILIO_API_BASE_URL || null }
        : null,
    solapi:
      env.SOLAPI_API_KEY && env.SOLAPI_API_SECRET && env.SOLAPI_FROM
        ? { apiKey: env.SOLAPI_API_KEY, apiSecret: env.SOLAPI_API_SECRET, from: env.SOLAPI_FROM, apiBaseUrl: env.SOLAPI_API_BASE_URL || null }
        : null,
    smsProvider: env.SMS_PROVIDER === 'twilio' ? 'twilio' : 'solapi',
    webhookAllowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
    pageImagesAtSend: env.PAGE_IMAGES_AT_SEND !== 'false',
    tsaUrl: env.TSA_URL || null,
    revocationSources: { ocsp: urlList(env, 'REVOCATION_OCSP_URLS'), crl: urlList(env, 'REVOCATION_CRL_URLS') },
    padesLevel: padesLevel(env),
    archiveTimestampMarginDays: int(env.ARCHIVE_TIMESTAMP_MARGIN_DAYS, 90),
    signingP12: env.SIGNING_P12 || null,
    verifyTrustAnchors: trustAnchors(env),
    signingKey: signingKeyConfig(env),
    signingP12Password: env.SIGNING_P12_PASSWORD || null,
    logLevel: logLevel(env),
    metricsToken: env.METRICS_TOKEN || null,
    metricsPort: int(env.METRICS_PORT, 0),
    projections: (env.PROJECTIONS ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    adminToken: env.ADMIN_TOKEN || null,
    readyMaxLagEvents: int(env.READY_MAX_LAG_EVENTS, 0) > 0 ? int(env.READY_MAX_LAG_EVENTS, 0) : 1000,
    readyMaxLagSeconds: int(env.READY_MAX_LAG_SECONDS, 0) > 0 ? int(env.READY_MAX_LAG_SECONDS, 0) : 30,
  };
}
