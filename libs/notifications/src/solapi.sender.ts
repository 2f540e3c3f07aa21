import { createHmac, randomBytes } from 'crypto';
import type { DetailGroupMessageResponse, FailedMessage, KakaoButton, MessageType } from 'solapi';
import { DeliveryError } from './delivery.errors';
import type { AlimtalkSendResult, AlimtalkSender, OutgoingAlimtalk, OutgoingSms, SmsSendResult, SmsSender } from './message.model';
import { DialableNumber, KOREA_COUNTRY_CODE, alimtalkReaches, readTextableNumber } from './phone-number.normalizer';
import { smsTypeFor } from './sms-length';

/**
 * SOLAPI (KakaoTalk 알림톡 to Korean numbers; SMS and LMS to Korean and foreign ones), written against its documented HTTP API
 * (`POST /messages/v4/send-many/detail`, HMAC-SHA256 authorization) with the request and response
 * types of its official SDK, `solapi`.
 *
 * Why not the SDK's `SolapiMessageService.send`: the SDK fixes its base URL to
 * https://api.solapi.com (a class field of an internal service the public class does not expose,
 * and no option or environment variable changes it), so it cannot be pointed at a local stand-in
 * for tests or development. Posting the same request ourselves keeps one code path for production
 * and tests; the shapes stay the SDK's (its types are imported below), and the signature follows
 * the SDK's own `getAuthInfo` (date + salt, keyed by the API secret).
 */
export interface SolapiSenderOptions {
  apiKey: string;
  apiSecret: string;
  /** The registered sender number (발신번호), domestic digits. */
  from: string;
  /** Replaces `https://api.solapi.com` (a stand-in for tests and local development). */
  apiBaseUrl?: string;
  timeoutMs?: number;
}

export const SOLAPI_DEFAULT_BASE_URL = 'https://api.solapi.com';
export const SOLAPI_SEND_PATH = '/messages/v4/send-many/detail';
/** SOLAPI's status for a message accepted for sending. */
export const SOLAPI_ACCEPTED = '2000';

interface SolapiMessage {
  /** Digits only: domestic for Korea (01012345678), the national number abroad (9012345678). */
  to: string;
  from: string;
  type: MessageType;
  /** The recipient's country calling code ("1", "81"); SOLAPI's default, absent here, is Korea's "82". */
  country?: string;
  text?: string;
  subject?: string;
  kakaoOptions?: { pfId: string; templateId: string; variables: Record<string, string>; disableSms: boolean; buttons?: KakaoButton[] };
}

/** The documented Authorization header: `HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…`. */
export function solapiAuthorization(apiKey: string, apiSecret: string, now: Date = new Date(), salt: string = randomBytes(16).toString('hex')): string {
  const date = now.toISOString();
  const signature = createHmac('sha256', apiSecret).update(date + salt).digest('hex');
  return `HMAC-SHA256 apiKey=${apiKey}, date=${date}, salt=${salt}, signature=${signature}`;
}

/**
 * Where SOLAPI is to send: a Korean number as its domestic digits (01012345678) with no country,
 * SOLAPI's default being 82; a foreign one as its national number (digits, no trunk prefix) with
 * the calling code in `country`, the message field SOLAPI's SDKs describe as the country code for
 * sending abroad (해외 문자 발송을 위한 국가번호).
 */
function solapiRecipient(number: DialableNumber): { to: string; country?: string } {
  return number.callingCode === KOREA_COUNTRY_CODE ? { to: number.domesticDigits } : { to: number.nationalNumber, country: number.callingCode };
}

export class SolapiSender implements SmsSender, AlimtalkSender {
  private readonly base: string;

  constructor(private readonly options: SolapiSenderOptions) {
    if (!options.apiKey || !options.apiSecret || !options.from) throw new Error('SOLAPI_API_KEY, SOLAPI_API_SECRET and SOLAPI_FROM are required for SolapiSender');
    const base = new URL(options.apiBaseUrl || SOLAPI_DEFAULT_BASE_URL);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new Error(`SOLAPI_API_BASE_URL must be http(s): ${options.apiBaseUrl}`);
    this.base = base.toString().replace(/\/+$/, '');
  }

  /** Reads `SOLAPI_API_KEY`, `SOLAPI_API_SECRET`, `SOLAPI_FROM` and optional `SOLAPI_API_BASE_URL`. */
  static fromEnv(env: NodeJS.ProcessEnv = process.env): SolapiSender {
    return new SolapiSender({
      apiKey: env.SOLAPI_API_KEY ?? '',
      apiSecret: env.SOLAPI_API_SECRET ?? '',
      from: env.SOLAPI_FROM ?? '',
      apiBaseUrl: env.SOLAPI_API_BASE_URL || undefined,
    });
  }

  async send(message: OutgoingSms | OutgoingAlimtalk): Promise<SmsSendResult & AlimtalkSendResult> {
    const channel = 'pfId' in message ? 'kakao' : 'sms';
    let number: DialableNumber;
    try {
      number = readTextableNumber(message.to);
    } catch (err) {
      throw new DeliveryError((err as Error).message, { transient: false, channel, cause: err });
    }
    const recipient = solapiRecipient(number);
    if (channel === 'kakao' && !alimtalkReaches(number)) {
      // 알림톡 is delivered through KakaoTalk to Korean phone numbers only. The notifier sends such a
      // message by SMS/LMS from the start; a caller that did not ask is refused here, finally and
      // without a request. The number itself stays out of the reason (it is evidence).
      throw new DeliveryError(`KakaoTalk 알림톡 reaches Korean (+82) numbers only; this recipient's number is +${recipient.country}${number.region ? ` (${number.region})` : ''}`, {
        transient: false,
        channel,
      });
    }
    const from = this.options.from.replace(/\D/g, '');
    let body: SolapiMessage;
    if ('pfId' in message) {
      body = {
        to: recipient.to,
        from,
        type: 'ATA',
        kakaoOptions: {
          pfId: message.pfId,
          templateId: message.templateId,
          variables: message.variables,
          // Our own fallback sends the SMS (and records it), so SOLAPI must not send one as well.
          disableSms: true,
          ...(message.buttonUrl ? { buttons: [{ buttonType: 'WL', buttonName: '문서 확인하기', linkMo: message.buttonUrl, linkPc: message.buttonUrl } as KakaoButton] } : {}),
        },
      };
    } else {
      const type = message.type ?? smsTypeFor(message.body);
      body = { ...recipient, from, type, text: message.body, ...(type === 'LMS' && message.subject ? { subject: message.subject } : {}) };
    }
    const response = await this.post({ messages: [body], allowDuplicates: false, showMessageList: true }, channel);
    const failed: FailedMessage | undefined = response.failedMessageList[0];
    if (failed) {
      // Refused at acceptance (an unknown template, a number KakaoTalk cannot reach): final.
      throw new DeliveryError(`${channel === 'kakao' ? 'KakaoTalk' : 'SMS'} message refused: ${failed.statusCode} ${failed.statusMessage}`, {
        transient: false,
        channel,
        providerCode: failed.statusCode,
        providerMessageId: failed.messageId,
      });
    }
    const accepted = response.messageList?.[0];
    return { messageId: accepted?.messageId ?? response.groupInfo.groupId, status: accepted?.statusCode ?? SOLAPI_ACCEPTED };
  }

  private async post(payload: { messages: SolapiMessage[]; allowDuplicates: boolean; showMessageList: boolean }, channel: 'kakao' | 'sms'): Promise<DetailGroupMessageResponse> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${SOLAPI_SEND_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: solapiAuthorization(this.options.apiKey, this.options.apiSecret) },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw new DeliveryError(`${channel} request to SOLAPI failed: ${(err as Error).message}`, { transient: true, channel, cause: err });
    }
    const text = await res.text();
    if (!res.ok) {
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { errorCode?: string }).errorCode;
      } catch {
        code = undefined;
      }
      // 429 and 5xx may pass; the rest (bad key, bad request, no balance) will not by retrying.
      throw new DeliveryError(`SOLAPI answered ${res.status}${code ? ` ${code}` : ''}`, { transient: res.status === 429 || res.status >= 500, channel, providerCode: code ?? res.status });
    }
    try {
      const parsed = JSON.parse(text) as DetailGroupMessageResponse;
      if (!Array.isArray(parsed.failedMessageList) || !parsed.groupInfo) throw new Error('missing failedMessageList or groupInfo');
      return parsed;
    } catch (err) {
      throw new DeliveryError(`SOLAPI answered something unreadable: ${(err as Error).message}`, { transient: false, channel, cause: err });
    }
  }
}
