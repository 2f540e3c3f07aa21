import net from 'node:net';
import { startFakeSolapi } from './fake-solapi';
import { eventually } from './worker-process';

/**
 * The fake's `busy()` is what fault tests wait on to know no exchange is under way. A client
 * killed while its request was still arriving (headers in, body not yet) must not leave it busy
 * for ever: the bulk-send kill test once had every message delivered and recorded, and timed out
 * waiting for the receivers to go idle.
 */
describe('fake SOLAPI', () => {
  it('is not left busy by a request whose client died before its body ended', async () => {
    const solapi = await startFakeSolapi();
    try {
      const { port } = new URL(solapi.baseUrl);
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.write(`POST /messages/v4/send-many/detail HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"messages":`);
      await eventually(async () => (solapi.busy() ? true : undefined), 'the request under way', 5000);
      socket.destroy();
      await eventually(async () => (solapi.busy() ? undefined : true), 'the fake idle again once the client is gone', 5000);
      expect(solapi.received).toEqual([]);
    } finally {
      await solapi.close();
    }
  });
});
