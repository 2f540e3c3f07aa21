import { randomBytes } from 'crypto';
import { Server } from 'http';
import { Socket } from 'net';

const REFUSALS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'request_header_too_large',
    message: 'The request line and headers are too large (the URL, cookies or another header).',
  },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, reason: 'Request Timeout', code: 'request_timeout', message: 'The request took too long to arrive.' },
};
const MALFORMED = { status: 400, reason: 'Bad Request', code: 'malformed_request', message: 'The HTTP request could not be parsed.' };

/**
 * Node answers a request its parser refuses (headers over the limit, a malformed request line)
 * itself, with an empty body, before Express sees it. This gives those answers the error envelope.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
    const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || pending?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = (err.code && Object.hasOwn(REFUSALS, err.code) ? REFUSALS[err.code] : undefined) ?? MALFORMED;
    const requestId = `req_${randomBytes(12).toString('hex')}`;
    const body = JSON.stringify({ error: { type: 'invalid_request_error', code: refusal.code, message: refusal.message, request_id: requestId } });
    socket.end(
      [
        `HTTP/1.1 ${refusal.status} ${refusal.reason}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `Request-Id: ${requestId}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  });
}
