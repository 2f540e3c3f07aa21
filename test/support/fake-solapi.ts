/**
 * A local stand-in for SOLAPI's `POST /messages/v4/send-many/detail` (SOLAPI_API_BASE_URL points
 * here): it checks the HMAC-SHA256 authorization as SOLAPI documents it, records every message
 * (알림톡 ATA, SMS, LMS) and answers in SOLAPI's response shape: accepted messages in
 * `messageList` with status 2000, refused ones in `failedMessageList` with the code a test chose.
 * Each message's `country` (the calling code of a number abroad, "81"; absent means Korea) is kept
 * as SOLAPI keeps it, "82" when none was given.
 * The shape is checked against the SDK's own response schema in solapi.sender.spec.ts.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const SOLAPI_API_KEY = 'NCSTESTKEY0000001';
export const SOLAPI_API_SECRET = 'solapi-secret-for-tests';
export const SOLAPI_FROM = '0212345678';

export interface SolapiReceived {
  type: 'ATA' | 'SMS' | 'LMS' | string;
  /** Digits: domestic for Korea, the national number abroad. */
  to: string;
  /** The recipient's country calling code, SOLAPI's default "82" when the message gave none. */
  country: string;
  from: string;
  text: string | null;
  subject: string | null;
  kakaoOptions: { pfId: string; templateId: string; variables: Record<string, string>; disableSms?: boolean; buttons?: unknown[] } | null;
  messageId: string;
  accepted: boolean;
}

const zeroTypes = () =>
  Object.fromEntries(['sms', 'lms', 'mms', 'ata', 'cta', 'cti', 'nsa', 'rcs_sms', 'rcs_lms', 'rcs_mms', 'rcs_tpl'].map((k) => [k, 0]));

/** Checks `HMAC-SHA256 apiKey=…, date=…, salt=…, signature=…` against the test key. */
function authorized(header: string | undefined): boolean {
  const m = /^HMAC-SHA256 apiKey=([^,]+), date=([^,]+), salt=([^,]+), signature=([0-9a-f]+)$/.exec(header ?? '');
  if (!m || m[1] !== SOLAPI_API_KEY) return false;
  return createHmac('sha256', SOLAPI_API_SECRET).update(m[2] + m[3]).digest('hex') === m[4];
}

export async function startFakeSolapi() {
  const received: SolapiReceived[] = [];
  /** Recipient (domestic digits) → the refusal SOLAPI gives for an ATA to it. */
  const refuseKakao = new Map<string, { statusCode: string; statusMessage: string }>();
  let open = 0;
  let n = 0;
  // hold(): requests read in full but not yet answered nor counted, until release().
  let holding = false;
  const waiting: Array<{ messages: number; go: () => void; gone: () => boolean }> = [];
  const server = http.createServer((req, res) => {
    open++;
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('data', (c: Buffer) => chunks.push(c));
    // A client killed while its request was still arriving: no 'end' will come, so the request
    // ends here, uncounted (it never arrived), instead of keeping the fake busy for good.
    req.on('close', () => {
      if (!ended) open--;
    });
    req.on('end', () => {
      ended = true;
      if (!holding) return answer();
      let messages = 0;
      try {
        messages = (JSON.parse(Buffer.concat(chunks).toString('utf8')).messages ?? []).length;
      } catch {
        messages = 0;
      }
      waiting.push({ messages, go: answer, gone: () => req.socket.destroyed });
    });
    // A held request whose client is gone (a killed worker) never arrived: dropped, not counted.
    function answer() {
      if (req.socket.destroyed) {
        open--;
        return;
      }
      const reply = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
        open--;
      };
      if (req.method !== 'POST' || req.url !== '/messages/v4/send-many/detail') return reply(404, { errorCode: 'NotFound', errorMessage: 'Not found' });
      if (!authorized(req.headers.authorization)) return reply(403, { errorCode: 'SignatureDoesNotMatch', errorMessage: 'Signature does not match' });
      let body: { messages?: Array<Record<string, unknown>> };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, { errorCode: 'ValidationError', errorMessage: 'JSON' });
      }
      const now = new Date().toISOString();
      const groupId = `G4V${randomBytes(10).toString('hex').toUpperCase()}`;
      const messageList: Array<{ messageId: string; statusCode: string; statusMessage: string }> = [];
      const failedMessageList: Array<Record<string, string>> = [];
      for (const m of body.messages ?? []) {
        const messageId = `M4V${String(++n).padStart(20, '0')}`;
        const kakao = (m.kakaoOptions as SolapiReceived['kakaoOptions']) ?? null;
        const refusal = m.type === 'ATA' ? refuseKakao.get(String(m.to)) : undefined;
        const country = m.country === undefined || m.country === null ? '82' : String(m.country);
        received.push({
          type: String(m.type),
          to: String(m.to),
          country,
          from: String(m.from),
          text: (m.text as string) ?? null,
          subject: (m.subject as string) ?? null,
          kakaoOptions: kakao,
          messageId,
          accepted: !refusal,
        });
        if (refusal) {
          failedMessageList.push({ to: String(m.to), from: String(m.from), type: String(m.type), country, messageId, accountId: '12345678901234', ...refusal });
        } else {
          messageList.push({ messageId, statusCode: '2000', statusMessage: '정상 접수(이통사로 접수 예정) ' });
        }
      }
      const total = (body.messages ?? []).length;
      reply(200, {
        failedMessageList,
        messageList,
        groupInfo: {
          count: {
            total,
            sentTotal: 0,
            sentFailed: 0,
            sentSuccess: 0,
            sentPending: messageList.length,
            sentReplacement: 0,
            refund: 0,
            registeredFailed: failedMessageList.length,
            registeredSuccess: messageList.length,
          },
          countForCharge: Object.fromEntries(Object.keys(zeroTypes()).map((k) => [k, {}])),
          balance: { requested: 0, replacement: 0, refund: 0, sum: 0 },
          point: { requested: 0, replacement: 0, refund: 0, sum: 0 },
          app: { profit: zeroTypes(), appId: null },
          log: [{ createAt: now, message: '[::ffff:127.0.0.1] 메시지 그룹이 생성되었습니다.' }],
          status: 'SENDING',
          allowDuplicates: false,
          isRefunded: false,
          accountId: '12345678901234',
          masterAccountId: null,
          apiVersion: '4',
          groupId,
          price: {},
          dateCreated: now,
          dateUpdated: now,
          scheduledDate: null,
          dateSent: null,
          dateCompleted: null,
        },
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    /** Makes every 알림톡 to `to` come back refused (default: 3104 카카오톡 미사용자). */
    refuseKakaoTo: (to: string, statusCode = '3104', statusMessage = '카카오톡 미사용자') => void refuseKakao.set(to, { statusCode, statusMessage }),
    /** An exchange is under way: a request read or being answered, not one held. */
    busy: () => open - waiting.length > 0,
    /** From now on requests wait, uncounted, until release(): a pause between messages. */
    hold: () => void (holding = true),
    /** The messages in the requests held now. */
    heldMessages: () => waiting.reduce((sum, w) => sum + w.messages, 0),
    /** Held requests whose client is still connected (a killed client's are gone once its socket closed). */
    heldConnected: () => waiting.filter((w) => !w.gone()).length,
    release: () => {
      holding = false;
      for (const w of waiting.splice(0)) w.go();
    },
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
