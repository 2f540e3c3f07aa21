/**
 * Receivers for messages sent by separate server and worker processes, counted where they
 * arrive: a real SMTP server, Twilio's Messages endpoint and a webhook endpoint, all on loopback.
 * Each reports the requests it is in the middle of, so a test can tell a quiet moment.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  attachments: number;
  /** The From header's name and address, and the Reply-To address (null when none). */
  from?: { name: string; address: string } | null;
  replyTo?: string | null;
  /** The Message-ID header: the same on every copy of one logical message. */
  messageId?: string | null;
}

/**
 * `replyDelayMs` (changeable later through `setReplyDelay`) makes a slow mail server: the message
 * counts as received when its data has arrived, and the reply comes that much later, which is
 * the window a worker can be killed in after the message left and before it heard so.
 */
export async function startSmtpReceiver(options: { replyDelayMs?: number } = {}) {
  const received: ReceivedMail[] = [];
  let open = 0;
  let replyDelayMs = options.replyDelayMs ?? 0;
  const later = (done: () => void) => (replyDelayMs > 0 ? setTimeout(done, replyDelayMs) : done());
  // hold(): transactions wait at MAIL FROM, before any message data, until release().
  let holding = false;
  const waiting: Array<() => void> = [];
  // holdReplies(): messages are received (counted) and their replies wait until releaseReplies().
  let replyHold: { code: number | null } | null = null;
  const heldReplies: Array<() => void> = [];
  const server = new SMTPServer({
    // A worker's pooled connection may still be open when a test ends: close() ends it at once.
    closeTimeout: 500,
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onMailFrom(_address, _session, callback) {
      if (holding) waiting.push(() => callback());
      else callback();
    },
    onData(stream, session, callback) {
      open++;
      const to = session.envelope.rcptTo.map((r) => r.address);
      const chunks: Buffer[] = [];
      let ended = false;
      stream.on('data', (c: Buffer) => chunks.push(c));
      // A client gone in the middle of the data (its process killed): smtp-server destroys the
      // stream, which never ends. That message never arrived: it stops counting as under way
      // here, uncounted, instead of keeping the receiver busy for good. (With a listener,
      // smtp-server also emits the error here; without one it would not, and nothing is to do.)
      stream.on('error', () => undefined);
      stream.on('close', () => {
        if (!ended) open--;
      });
      stream.on('end', () => {
        ended = true;
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            const from = mail.from?.value[0];
            received.push({
              to,
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              attachments: mail.attachments.length,
              from: from ? { name: from.name, address: from.address ?? '' } : null,
              replyTo: mail.replyTo?.value[0]?.address ?? null,
              messageId: mail.messageId ?? null,
            });
            const answer = (code: number | null) => {
              open--;
              callback(code ? Object.assign(new Error(`${code} 4.3.0 try again later`), { responseCode: code }) : undefined);
            };
            if (replyHold) {
              const { code } = replyHold;
              heldReplies.push(() => answer(code));
            } else later(() => answer(null));
          },
          (err) => {
            open--;
            callback(err);
          },
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    received,
    busy: () => open > 0,
    /** From now on a transaction waits at MAIL FROM (no message data yet) until release(): a pause between messages. */
    hold: () => void (holding = true),
    /** The transactions held now (one message each: the notifier sends one mail per transaction). */
    held: () => waiting.length,
    release: () => {
      holding = false;
      for (const go of waiting.splice(0)) go();
    },
    setReplyDelay: (ms: number) => void (replyDelayMs = ms),
    /**
     * From now on a message is received (counted) and its reply waits until releaseReplies(), then
     * answers `code` (e.g. 451, transient: the sender retries) or 250 when null: a worker can be
     * frozen in the window after its message arrived and before it heard back.
     */
    holdReplies: (code: number | null = null) => void (replyHold = { code }),
    /** Replies held so far. */
    heldReplies: () => heldReplies.length,
    releaseReplies: () => {
      replyHold = null;
      for (const go of heldReplies.splice(0)) go();
    },
    url: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export const TWILIO_ACCOUNT_SID = 'AC' + 'feedface'.repeat(4);
export const TWILIO_AUTH_TOKEN = 'twilio-token-for-tests';
export const TWILIO_FROM = '+15005550006';

/** A server that counts and answers; `answer` returns status and JSON body for each request. */
async function httpReceiver(answer: (req: http.IncomingMessage, body: string, n: number) => { status: number; json?: unknown }) {
  let open = 0;
  let n = 0;
  const server = http.createServer((req, res) => {
    open++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = answer(req, Buffer.concat(chunks).toString('utf8'), ++n);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.json ?? { ok: true }));
      open--;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    busy: () => open > 0,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ReceivedSms {
  to: string;
  from: string;
  body: string;
}

/** Twilio's Messages endpoint (TWILIO_API_BASE_URL points here). */
export async function startTwilioReceiver() {
  const received: ReceivedSms[] = [];
  const server = await httpReceiver((_req, body, n) => {
    const form = new URLSearchParams(body);
    received.push({ to: form.get('To') ?? '', from: form.get('From') ?? '', body: form.get('Body') ?? '' });
    return {
      status: 201,
      json: { sid: `SM${String(n).padStart(32, '0')}`, account_sid: TWILIO_ACCOUNT_SID, status: 'queued', to: form.get('To'), from: form.get('From'), body: form.get('Body') },
    };
  });
  return { ...server, received };
}

export interface ReceivedWebhook {
  webhookId: string;
  event: { id: string; type: string; data: Record<string, unknown> };
}

/** A webhook endpoint answering 200 to everything. */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const server = await httpReceiver((req, body) => {
    received.push({ webhookId: String(req.headers['webhook-id'] ?? ''), event: JSON.parse(body) });
    return { status: 200 };
  });
  return { ...server, url: `${server.baseUrl}/hooks/dojang`, received };
}
