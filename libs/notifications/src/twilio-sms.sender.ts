import type { Twilio } from 'twilio';
// Type-only: the runtime class comes from the package's public export below.
import type TwilioRequestClient from 'twilio/lib/base/RequestClient';
import { DeliveryError, isTransientDeliveryError } from './delivery.errors';
import type { OutgoingSms, SmsSendResult, SmsSender } from './message.model';
import { readTextableNumber, toE164 } from './phone-number.normalizer';

/**
 * The twilio client only knows Twilio's own hosts (edge and region options
 * change the host name within twilio.com), so pointing it at a stand-in
 * means swapping its HTTP client, which the library documents as the
 * extension point ("custom HTTP clients"). Requests still go through the
 * official client: URL building, form encoding, auth and error mapping are
 * the library's, not ours.
 */
function rebasedRequestClient(twilio: TwilioModule) {
  return class RebasedTwilioRequestClient extends twilio.RequestClient {
  private readonly base: URL;

  constructor(baseUrl: string, options?: TwilioRequestClient.RequestClientOptions) {
    super(options);
    this.base = new URL(baseUrl);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') {
      throw new Error(`TWILIO_API_BASE_URL must be http(s): ${baseUrl}`);
    }
  }

  override request<TData>(opts: TwilioRequestClient.RequestOptions<TData>) {
    return super.request<TData>({ ...opts, uri: this.rebase(opts.uri) });
  }

  private rebase(uri: string): string {
    const target = new URL(uri);
    if (target.hostname !== 'twilio.com' && !target.hostname.endsWith('.twilio.com')) return uri;
    const prefix = this.base.pathname.replace(/\/+$/, '');
    return `${this.base.origin}${prefix}${target.pathname}${target.search}`;
  }
  };
}

type TwilioModule = typeof import('twilio');
let twilioModule: TwilioModule | undefined;
let RebasedClient: ReturnType<typeof rebasedRequestClient> | undefined;

/**
 * twilio (with axios, xmlbuilder and jsonwebtoken: about 1.5 MB of JavaScript) is loaded when a
 * Twilio sender is made, not when this library is: most installations send SMS through SOLAPI or
 * not at all, and every process loads libs/notifications.
 */
function loadTwilio(): { twilio: TwilioModule; Rebased: ReturnType<typeof rebasedRequestClient> } {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  twilioModule ??= require('twilio') as TwilioModule;
  RebasedClient ??= rebasedRequestClient(twilioModule);
  return { twilio: twilioModule, Rebased: RebasedClient };
}

export interface TwilioSmsSenderOptions {
  accountSid: string;
  authToken: string;
  /** A sender number (any format toE164 accepts) or a Messaging Service SID (`MG…`). */
  from: string;
  /** Replaces `https://api.twilio.com` (a stand-in for tests and local development). */
  apiBaseUrl?: string;
  /** Per request; the library's default is 30 s. */
  timeoutMs?: number;
  /** Twilio calls this URL with delivery status updates. */
  statusCallbackUrl?: string;
}

export class TwilioSmsSender implements SmsSender {
  private readonly client: Twilio;
  private readonly from: { from: string } | { messagingServiceSid: string };
  private readonly statusCallbackUrl?: string;

  constructor(options: TwilioSmsSenderOptions) {
    if (!options.accountSid || !options.authToken || !options.from) {
      throw new Error('TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM are required for TwilioSmsSender');
    }
    const timeout = options.timeoutMs ?? 15_000;
    const { twilio, Rebased } = loadTwilio();
    const httpClient = options.apiBaseUrl
      ? new Rebased(options.apiBaseUrl, { timeout })
      : new twilio.RequestClient({ timeout });
    this.client = twilio(options.accountSid, options.authToken, { httpClient });
    this.from = /^MG[0-9a-f]{32}$/i.test(options.from)
      ? { messagingServiceSid: options.from }
      : { from: toE164(options.from) };
    this.statusCallbackUrl = options.statusCallbackUrl;
  }

  /** Reads `TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`, `TWILIO_FROM` and optional `TWILIO_API_BASE_URL`. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): TwilioSmsSender {
    return new TwilioSmsSender({
      accountSid: env.TWILIO_ACCOUNT_SID ?? '',
      authToken: env.TWILIO_AUTH_TOKEN ?? '',
      from: env.TWILIO_FROM ?? '',
      apiBaseUrl: env.TWILIO_API_BASE_URL || undefined,
    });
  }

  async send(sms: OutgoingSms): Promise<SmsSendResult> {
    // An unusable number is the caller's data problem, never worth a retry.
    let to: string;
    try {
      to = readTextableNumber(sms.to).e164;
    } catch (err) {
      throw new DeliveryError((err as Error).message, { transient: false, channel: 'sms', cause: err });
    }
    try {
      const message = await this.client.messages.create({
        ...this.from,
        to,
        body: sms.body,
        ...(this.statusCallbackUrl ? { statusCallback: this.statusCallbackUrl } : {}),
      });
      return { messageId: message.sid, status: String(message.status ?? '') };
    } catch (err) {
      const e = err as { message?: string; status?: number; code?: number | string };
      throw new DeliveryError(`SMS to ${maskPhone(to)} failed: ${e.message ?? String(err)}`, {
        transient: isTransientDeliveryError(err),
        channel: 'sms',
        providerCode: e.code ?? e.status,
        cause: err,
      });
    }
  }
}

/** Error messages end up in logs; keep only enough of the number to tell recipients apart. */
function maskPhone(e164: string): string {
  return e164.length > 6 ? `${e164.slice(0, 5)}****${e164.slice(-2)}` : '****';
}
