import net from 'node:net';
import { startSmtpReceiver } from './topology-receivers';
import { eventually } from './worker-process';

/** Sends one SMTP command (or none, for the greeting) and resolves with the reply's code. */
function smtpClient(socket: net.Socket) {
  let buffer = '';
  const waiters: Array<(line: string) => void> = [];
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    for (let i = buffer.indexOf('\r\n'); i >= 0; i = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      // The last line of a reply is "250 …", the others "250-…".
      if (/^\d{3} /.test(line)) waiters.shift()?.(line);
    }
  });
  return (command?: string) =>
    new Promise<string>((resolve) => {
      waiters.push(resolve);
      if (command !== undefined) socket.write(`${command}\r\n`);
    });
}

/**
 * `busy()` is what fault tests wait on to know no message is under way. A client that dies in the
 * middle of a message's data (its process killed) must not leave the receiver busy for ever: the
 * bulk-send kill test once had all 499 mails in and timed out with "SMTP busy".
 */
describe('SMTP receiver', () => {
  it('is not left busy by a client that died in the middle of a message', async () => {
    const smtp = await startSmtpReceiver();
    const { port } = new URL(smtp.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    try {
      const send = smtpClient(socket);
      expect(await send()).toMatch(/^220/);
      expect(await send('EHLO client.test')).toMatch(/^250/);
      expect(await send('MAIL FROM:<sign@dojang.test>')).toMatch(/^250/);
      expect(await send('RCPT TO:<hire-1@example.com>')).toMatch(/^250/);
      expect(await send('DATA')).toMatch(/^354/);
      socket.write('Subject: half a message\r\n\r\nThe rest never comes');
      await eventually(async () => (smtp.busy() ? true : undefined), 'the message under way', 5000);
      socket.destroy();
      await eventually(async () => (smtp.busy() ? undefined : true), 'the receiver idle again once the client is gone', 5000);
      expect(smtp.received).toEqual([]);
    } finally {
      socket.destroy();
      await smtp.close();
    }
  });
});
