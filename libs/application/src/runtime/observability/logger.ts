import pino, { DestinationStream, Logger, LoggerOptions } from 'pino';

export type { Logger };

export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Field paths that hold secrets or personal data wherever they appear in a log object: API keys,
 * signing tokens, PINs and their hashes, webhook secrets, phone numbers and e-mail addresses.
 * pino removes them before serialising, so a careless `log.info({ participant })` cannot leak.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  ...['key', 'api_key', 'token', 'signing_url', 'pin', 'pin_hash', 'token_hash', 'secret', 'webhook_secret', 'phone', 'email', 'to', 'authorization', 'password']
    .flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];

const MASKS: Array<[RegExp, string]> = [
  // API keys and webhook secrets by their prefixes.
  [/\b(sk_(?:test|live)_)[A-Za-z0-9_-]+/g, '$1[redacted]'],
  [/\bwhsec_[A-Za-z0-9+/=_-]+/g, 'whsec_[redacted]'],
  // Signing tokens travel in paths (/sign/<token>, /v1/signing/<token>/…) and links.
  [/(\/sign(?:ing)?\/)[A-Za-z0-9_-]{16,}/g, '$1[redacted]'],
  // File URL signatures.
  [/([?&]signature=)[^&\s"]+/g, '$1[redacted]'],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, '[email]'],
  // Phone numbers are stored digits only (SPEC): a run of 9–15 digits, optionally after +.
  [/(?<![\w.-])\+?\d{9,15}(?![\w.-])/g, '[phone]'],
  // A PIN is six digits on its own.
  [/(?<![\w-])\d{6}(?![\w-])/g, '[pin]'],
];

/** Masks secrets and personal data inside free text (messages, error strings). */
export function maskSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of MASKS) out = out.replace(pattern, replacement);
  return out;
}

function maskDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskSecrets(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) {
    return { type: value.name, message: maskSecrets(value.message), stack: value.stack ? maskSecrets(value.stack) : undefined };
  }
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskDeep(v, depth + 1);
  return out;
}

export interface CreateLoggerOptions {
  level: LogLevel;
  /** Where lines go (stdout by default); tests pass a stream to read them back. */
  destination?: DestinationStream;
  /** Human-readable lines (pino-pretty) instead of JSON; default: stdout is a terminal outside production. */
  pretty?: boolean;
  base?: Record<string, unknown>;
}

/**
 * The process's logger: JSON lines with redaction, pretty on a developer's terminal. Every
 * argument is masked on the way in (messages and error strings too), because the redaction paths
 * only cover structured fields.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pinoOptions: LoggerOptions = {
    level: options.level,
    base: { pid: process.pid, ...(options.base ?? {}) },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => maskDeep(a)) as Parameters<typeof method>);
      },
    },
    serializers: { err: (err: Error) => maskDeep(err) as Record<string, unknown> },
  };
  if (options.destination) return pino(pinoOptions, options.destination);
  const pretty = options.pretty ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== 'production');
  if (pretty) {
    return pino({ ...pinoOptions, transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } });
  }
  return pino(pinoOptions);
}

/** A logger that writes nothing (tests, the CLI's silent mode). */
export const silentLogger: Logger = pino({ level: 'silent' });
