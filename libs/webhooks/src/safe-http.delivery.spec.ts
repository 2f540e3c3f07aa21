import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildWebhookHeaders, deliverWebhook, generateWebhookSecret, privateAddressOf, verifyWebhook } from '@dojang/webhooks';

interface Hit {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver whose behaviour per path is given by the test. */
async function startReceiver(handler: (hit: Hit, res: http.ServerResponse) => void) {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      hits.push(hit);
      handler(hit, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    hits,
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('deliverWebhook', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt_1', type: 'document.completed', data: { document_id: 'd1', title: '임대차계약서' } });
  const timestamp = 1_700_000_000;
  const headers = buildWebhookHeaders({ secret, id: 'msg_1', timestamp, body });

  describe('refuses private targets without connecting', () => {
    let requestSpy: jest.SpyInstance;
    beforeEach(() => {
      requestSpy = jest.spyOn(http, 'request');
    });
    afterEach(() => requestSpy.mockRestore());

    it.each([
      'http://127.0.0.1:9/hook',
      'http://[::1]:9/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/hook',
      'http://[::ffff:10.0.0.1]/hook',
      'http://0.0.0.0:9/',
      'http://2130706433:9/',
    ])('%s', async (url) => {
      const result = await deliverWebhook({ url, headers, body });
      expect(result.status).toBeNull();
      expect(result.errorCode).toBe('blocked_address');
      expect(requestSpy).not.toHaveBeenCalled();
    });
  });

  it('refuses a name that resolves to loopback at connect time (localhost)', async () => {
    const receiver = await startReceiver((_hit, res) => res.end('ok'));
    try {
      const result = await deliverWebhook({ url: `http://localhost:${receiver.port}/hook`, headers, body });
      expect(result).toMatchObject({ status: null, errorCode: 'blocked_address' });
      expect(result.error).toMatch(/127\.0\.0\.1/);
      expect(receiver.hits).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  // Issue 24 §22: public wildcard-DNS names that answer loopback (what nip.io and localtest.me do).
  it.each([
    ['127.0.0.1.nip.io', [{ address: '127.0.0.1', family: 4 }]],
    ['localtest.me', [{ address: '127.0.0.1', family: 4 }]],
    ['v6.localtest.me', [{ address: '::1', family: 6 }]],
  ])('refuses %s when it resolves to loopback at connect time: a receiver listening there is never reached', async (name, answers) => {
    const receiver = await startReceiver((_hit, res) => res.end('ok'));
    try {
      const resolveHost = jest.fn(async () => answers);
      const result = await deliverWebhook({ url: `http://${name}:${receiver.port}/hook`, headers, body, resolveHost, timeoutMs: 2000 });
      expect(resolveHost).toHaveBeenCalledWith(name);
      expect(result).toMatchObject({ status: null, errorCode: 'blocked_address' });
      expect(result.error).toContain(answers[0].address);
      expect(receiver.hits).toHaveLength(0);
      // The same name, the same resolver, private networks allowed: the receiver answers, so the refusal above was the check.
      const allowed = await deliverWebhook({ url: `http://${name}:${receiver.port}/hook`, headers, body, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }], allowPrivateNetworks: true, timeoutMs: 2000 });
      expect(allowed.status).toBe(200);
      expect(receiver.hits).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('refuses when the resolver answers a private address (DNS rebinding), never connecting to it', async () => {
    const resolveHost = jest.fn(async () => [{ address: '10.0.0.1', family: 4 }]);
    const result = await deliverWebhook({ url: 'http://rebind.example.com/hook', headers, body, resolveHost, timeoutMs: 2000 });
    expect(result).toMatchObject({ status: null, errorCode: 'blocked_address' });
    expect(resolveHost).toHaveBeenCalledWith('rebind.example.com');
  });

  it('refuses a name with mixed public and private answers', async () => {
    const resolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '::ffff:169.254.169.254', family: 6 },
    ];
    const result = await deliverWebhook({ url: 'http://mixed.example.com/', headers, body, resolveHost, timeoutMs: 2000 });
    expect(result.errorCode).toBe('blocked_address');
  });

  it('reports an unresolvable host as a DNS error', async () => {
    const resolveHost = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    };
    const result = await deliverWebhook({ url: 'https://nowhere.invalid/', headers, body, resolveHost });
    expect(result).toMatchObject({ status: null, errorCode: 'dns_error' });
  });

  it('delivers to a loopback receiver when private networks are allowed, with signed headers and exact body', async () => {
    const receiver = await startReceiver((_hit, res) => {
      res.writeHead(204);
      res.end();
    });
    try {
      for (const url of [receiver.url('/hook?src=test'), `http://localhost:${receiver.port}/hook?src=test`]) {
        const result = await deliverWebhook({
          url,
          headers: { ...headers, Host: 'evil.example', 'Content-Length': '1' },
          body,
          allowPrivateNetworks: true,
        });
        expect(result.status).toBe(204);
        expect(result.error).toBeUndefined();
        expect(result.durationMs).toBeGreaterThanOrEqual(0);
      }
      expect(receiver.hits).toHaveLength(2);
      const hit = receiver.hits[0];
      expect(hit.method).toBe('POST');
      expect(hit.url).toBe('/hook?src=test');
      expect(hit.body).toBe(body);
      expect(hit.headers['content-type']).toBe('application/json');
      expect(hit.headers['user-agent']).toMatch(/^Dojang-Webhooks\//);
      expect(hit.headers.host).toBe(`127.0.0.1:${receiver.port}`);
      expect(Number(hit.headers['content-length'])).toBe(Buffer.byteLength(body));
      expect(hit.headers['webhook-id']).toBe('msg_1');
      expect(hit.headers['webhook-timestamp']).toBe(String(timestamp));
      expect(
        verifyWebhook({
          secret,
          headers: hit.headers,
          body: hit.body,
          now: new Date(timestamp * 1000),
        }),
      ).toEqual({ id: 'msg_1', timestamp });
    } finally {
      await receiver.close();
    }
  });

  it('does not follow redirects: a 302 is the result and the target is never hit', async () => {
    const receiver = await startReceiver((hit, res) => {
      if (hit.url === '/hook') {
        res.writeHead(302, { location: '/target' });
        res.end('moved');
      } else {
        res.end('should not be reached');
      }
    });
    try {
      const result = await deliverWebhook({ url: receiver.url('/hook'), headers, body, allowPrivateNetworks: true });
      expect(result.status).toBe(302);
      expect(result.responseBodySnippet).toBe('moved');
      expect(receiver.hits.map((h) => h.url)).toEqual(['/hook']);
    } finally {
      await receiver.close();
    }
  });

  it('returns the status and a capped body snippet of a failing receiver', async () => {
    const big = 'x'.repeat(200 * 1024);
    const receiver = await startReceiver((hit, res) => {
      res.writeHead(hit.url === '/big' ? 200 : 500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(hit.url === '/big' ? big : '서버 오류');
    });
    try {
      const failed = await deliverWebhook({ url: receiver.url('/err'), headers, body, allowPrivateNetworks: true });
      expect(failed).toMatchObject({ status: 500, responseBodySnippet: '서버 오류' });
      const large = await deliverWebhook({ url: receiver.url('/big'), headers, body, allowPrivateNetworks: true });
      expect(large.status).toBe(200);
      expect(large.responseBodySnippet).toHaveLength(1024);
    } finally {
      await receiver.close();
    }
  });

  it('never cuts the snippet inside a surrogate pair (a lone surrogate is text no store can keep)', async () => {
    const receiver = await startReceiver((_hit, res) => {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('x'.repeat(1023) + '😀 and more');
    });
    try {
      const failed = await deliverWebhook({ url: receiver.url('/err'), headers, body, allowPrivateNetworks: true });
      expect(failed.responseBodySnippet).toBe('x'.repeat(1023));
    } finally {
      await receiver.close();
    }
  });

  it('times out against a receiver that never answers', async () => {
    const receiver = await startReceiver(() => {
      /* never respond */
    });
    try {
      const result = await deliverWebhook({ url: receiver.url(), headers, body, allowPrivateNetworks: true, timeoutMs: 300 });
      expect(result).toMatchObject({ status: null, errorCode: 'timeout' });
      expect(result.durationMs).toBeGreaterThanOrEqual(290);
      expect(result.durationMs).toBeLessThan(5000);
      expect(receiver.hits).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('reports a refused connection as a connection error', async () => {
    const receiver = await startReceiver(() => undefined);
    const url = receiver.url();
    await receiver.close();
    const result = await deliverWebhook({ url, headers, body, allowPrivateNetworks: true });
    expect(result).toMatchObject({ status: null, errorCode: 'connection_error' });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('rejects non-http URLs and header injection without throwing', async () => {
    expect(await deliverWebhook({ url: 'file:///etc/passwd', headers, body })).toMatchObject({ status: null, errorCode: 'invalid_url' });
    const bad = await deliverWebhook({
      url: 'http://127.0.0.1:9/',
      headers: { 'x-bad': 'a\r\nb: c' },
      body,
      allowPrivateNetworks: true,
    });
    expect(bad).toMatchObject({ status: null, errorCode: 'invalid_request' });
  });
});

describe('privateAddressOf (the registration-time check)', () => {
  const answer = (address: string, family = 4) => async () => [{ address, family }];

  it('names the private address a host resolves to now', async () => {
    await expect(privateAddressOf('https://127.0.0.1.nip.io/hook', answer('127.0.0.1'))).resolves.toBe('127.0.0.1');
    await expect(privateAddressOf('https://localtest.me/hook', answer('::1', 6))).resolves.toBe('::1');
    await expect(privateAddressOf('https://metadata.example.com/', answer('169.254.169.254'))).resolves.toBe('169.254.169.254');
  });

  it('is null for a public answer, a literal IP (checked by the URL policy), an unresolvable or a slow name', async () => {
    await expect(privateAddressOf('https://hooks.example.com/', answer('93.184.216.34'))).resolves.toBeNull();
    const never = jest.fn(async () => [{ address: '127.0.0.1', family: 4 }]);
    await expect(privateAddressOf('https://93.184.216.34/', never)).resolves.toBeNull();
    expect(never).not.toHaveBeenCalled();
    await expect(privateAddressOf('https://nowhere.invalid/', async () => Promise.reject(Object.assign(new Error('x'), { code: 'ENOTFOUND' })))).resolves.toBeNull();
    const slow = () => new Promise<Array<{ address: string; family: number }>>(() => undefined);
    await expect(privateAddressOf('https://slow.example.com/', slow, 50)).resolves.toBeNull();
  });
});
