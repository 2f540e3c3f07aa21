import * as classValidator from 'class-validator';
import { deflateSync } from 'zlib';
import { WrongExpectedRevisionError } from '@dojang/event-store';
import { API_TEST_OPTIONS, Client, addParticipant, client, createDoc, expectError, expectStatus } from '../support/api-helpers';
import { AddressInfo, connect } from 'net';
import { REFUSED_BODY_DRAIN } from '../../apps/api/src/shared/refused-body';
import { sendEndlessBody } from '../support/endless-body';
import { sentWith, signer } from '../support/lifecycle';
import { bearer, TestOrg, useTestApp } from '../support/test-app';

/** Nested `depth` levels deep: {"a":{"a":…"x"…}} or [[…"x"…]]. */
function nested(depth: number, kind: 'object' | 'array', inner = '"x"'): string {
  return kind === 'object' ? '{"a":'.repeat(depth) + inner + '}'.repeat(depth) : '['.repeat(depth) + inner + ']'.repeat(depth);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
}
/** A valid, all-black 16-bit greyscale PNG: tiny on the wire (zeros compress), huge once decoded. */
function greyPng16(width: number, height: number): string {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 16; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((width * 2 + 1) * height);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** Hostile but well-formed requests: every one answers a 4xx in the envelope, never a 5xx. */
describe('hostile input', () => {
  const t = useTestApp(API_TEST_OPTIONS);
  let org: TestOrg;
  let c: Client;
  beforeAll(async () => {
    org = await t.createOrg();
    c = client(t, org.test);
  });

  const raw = (method: 'post' | 'patch' | 'put', path: string, body: string) =>
    t.http[method](path).set(bearer(org.test)).set('Content-Type', 'application/json').send(body);

  describe('concurrent writes to one document', () => {
    it('32 PATCHes of the title, 32 of the metadata and 32 participant adds at once all succeed, and all are kept', async () => {
      const doc = await createDoc(c);
      // Writers in one process queue per stream, so none of them even needs a retry.
      const append = t.infra.events.append.bind(t.infra.events);
      let conflicts = 0;
      // The embedded SQLite store reads synchronously, so on loopback requests rarely overlap
      // between reading the stream and appending; with a store that reads over the network
      // (PostgreSQL, EventStoreDB) they do. A read that takes a few milliseconds reproduces that.
      const readStream = t.infra.events.readStream.bind(t.infra.events);
      const slowReads = jest.spyOn(t.infra.events, 'readStream').mockImplementation(async (...args) => {
        await new Promise((r) => setTimeout(r, 3));
        return readStream(...args);
      });
      const spy = jest.spyOn(t.infra.events, 'append').mockImplementation((...args) =>
        append(...args).catch((err) => {
          if (err instanceof WrongExpectedRevisionError) conflicts++;
          throw err;
        }),
      );
      const requests = [
        ...Array.from({ length: 32 }, (_, i) => c.patch(`/documents/${doc.id}`, { title: `제목 ${i}` })),
        ...Array.from({ length: 32 }, (_, i) => c.patch(`/documents/${doc.id}`, { metadata: { [`k${i % 16}`]: `v${i}` } })),
        ...Array.from({ length: 32 }, (_, i) => c.post(`/documents/${doc.id}/participants`, { name: `동시 ${i}`, auth: 'none' })),
      ];
      const results = await Promise.all(requests).finally(() => {
        spy.mockRestore();
        slowReads.mockRestore();
      });
      expect(results.map((r) => r.status).filter((s) => s >= 300)).toEqual([]);
      expect(conflicts).toBe(0);
      const after = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      expect(after.participants).toHaveLength(32);
      expect(Object.keys(after.metadata)).toHaveLength(16);
    });

    it('a write that loses every retry to another process answers 409 concurrent_modification, with Retry-After, and writes nothing', async () => {
      const doc = await createDoc(c);
      const stream = `document-${doc.id}`;
      const append = t.infra.events.append.bind(t.infra.events);
      const spy = jest.spyOn(t.infra.events, 'append').mockImplementation(async (streamId, events, expected) => {
        if (streamId === stream) throw new WrongExpectedRevisionError(streamId, expected, 99);
        return append(streamId, events, expected);
      });
      try {
        const res = await c.patch(`/documents/${doc.id}`, { title: '경합' });
        const err = expectError(res, 409, 'concurrent_modification');
        expect(err.message).toMatch(/retry/i);
        expect(res.headers['retry-after']).toBe('1');
      } finally {
        spy.mockRestore();
      }
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.title).toBe(doc.title);
    });
  });

  describe('text that is not valid Unicode', () => {
    it('a lone surrogate in a title is refused with 400 at the door', async () => {
      expectError(await raw('post', '/v1/documents', '{"title":"lone \\ud800","content":"x"}'), 400, 'invalid_parameter', 'title');
      expectError(await raw('post', '/v1/documents', '{"title":"t","content":"x \\udfff y"}'), 400, 'invalid_parameter', 'content');
    });

    it('is refused everywhere text is accepted: metadata values and keys, participants, templates, PATCH, signing', async () => {
      const doc = await createDoc(c);
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"title":"\\ud83d"}'), 400, 'invalid_parameter', 'title');
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"metadata":{"k":"\\udc00"}}'), 400, 'invalid_parameter', 'metadata.k');
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"metadata":{"\\ud800":"v"}}'), 400, 'invalid_parameter', 'metadata');
      expectError(await raw('post', `/v1/documents/${doc.id}/participants`, '{"name":"\\ud800","auth":"none"}'), 400, 'invalid_parameter', 'name');
      expectError(
        await raw('post', `/v1/documents/${doc.id}/participants/batch`, '{"participants":[{"name":"a","auth":"none"},{"name":"b\\udbff","auth":"none"}]}'),
        400,
        'invalid_parameter',
        'participants[1].name',
      );
      expectError(await raw('post', '/v1/templates', '{"name":"t","content":"<p>\\ud800</p>"}'), 400, 'invalid_parameter', 'content');
      const sent = await sentWith(c, [{ name: '갑', auth: 'none' }]);
      const decline = await t.http.post(`/v1/signing/${sent.p['갑'].token}/decline`).set('Content-Type', 'application/json').send('{"reason":"no \\ud800"}');
      expectError(decline, 400, 'invalid_parameter', 'reason');
      // Nothing of the above reached the document.
      const after = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      expect(after).toMatchObject({ title: doc.title, metadata: {}, participants: [] });
    });

    it('a well-formed surrogate pair (an emoji) is text like any other, and its document downloads', async () => {
      const res = expectStatus(await raw('post', '/v1/documents', '{"title":"계약 \\ud83d\\ude00","content":"x"}'), 201);
      expect(res.body.title).toBe('계약 😀');
      const file = await c.get(`/documents/${res.body.id}/file`);
      expect(file.status).toBe(200);
      expect(file.headers['content-disposition']).toContain("filename*=UTF-8''");
    });
  });

  // One rule for every store: text PostgreSQL's jsonb cannot hold (NUL; the other C0 controls are
  // refused alike, tab, line feed and carriage return excepted) is refused at the door, where the
  // parameter can be named, instead of a 500 on one store and stored on another.
  describe('control characters', () => {
    it('NUL in a title is refused with 400 at the door, and nothing is created', async () => {
      const before = expectStatus(await c.get('/documents?limit=100'), 200).body.data.length;
      const err = expectError(await raw('post', '/v1/documents', '{"title":"a\\u0000b","content":"x"}'), 400, 'invalid_parameter', 'title');
      expect(err.message).toMatch(/control character/);
      expectError(await raw('post', '/v1/documents', '{"title":"t","content":"x \\u001b[31m y"}'), 400, 'invalid_parameter', 'content');
      expect(expectStatus(await c.get('/documents?limit=100'), 200).body.data.length).toBe(before);
    });

    it('is refused everywhere text is accepted: metadata values and keys, participants, templates, PATCH, signing, query strings', async () => {
      const doc = await createDoc(c);
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"title":"a\\u0000"}'), 400, 'invalid_parameter', 'title');
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"metadata":{"k":"v\\u0000"}}'), 400, 'invalid_parameter', 'metadata.k');
      expectError(await raw('patch', `/v1/documents/${doc.id}`, '{"metadata":{"k\\u0000":"v"}}'), 400, 'invalid_parameter', 'metadata');
      expectError(await raw('post', `/v1/documents/${doc.id}/participants`, '{"name":"\\u0000홍길동","auth":"none"}'), 400, 'invalid_parameter', 'name');
      expectError(
        await raw('post', `/v1/documents/${doc.id}/participants/batch`, '{"participants":[{"name":"a","auth":"none"},{"name":"b\\u0007","auth":"none"}]}'),
        400,
        'invalid_parameter',
        'participants[1].name',
      );
      expectError(await raw('post', '/v1/templates', '{"name":"t","content":"<p>\\u0000</p>"}'), 400, 'invalid_parameter', 'content');
      expectError(await c.get('/documents?starting_after=doc%00x'), 400, 'invalid_parameter', 'starting_after');
      const sent = await sentWith(c, [{ name: '갑', auth: 'none' }]);
      const decline = await t.http.post(`/v1/signing/${sent.p['갑'].token}/decline`).set('Content-Type', 'application/json').send('{"reason":"no \\u0000"}');
      expectError(decline, 400, 'invalid_parameter', 'reason');
      const after = expectStatus(await c.get(`/documents/${doc.id}`), 200).body;
      expect(after).toMatchObject({ title: doc.title, metadata: {}, participants: [] });
    });

    it('tab, line feed and carriage return are text like any other', async () => {
      const res = expectStatus(await raw('post', '/v1/documents', '{"title":"갑\\t을","content":"line 1\\r\\nline 2\\n"}'), 201);
      expect(res.body.title).toBe('갑\t을');
    });
  });

  describe('deeply nested JSON', () => {
    it.each([
      ['an object 5,000 deep as the body', 5_000, 'object', (n: string) => n],
      ['an array 50,000 deep as the body', 50_000, 'array', (n: string) => n],
      ['an object 50,000 deep in metadata', 50_000, 'object', (n: string) => `{"title":"t","content":"x","metadata":${n}}`],
      ['an array 5,000 deep as the title', 5_000, 'array', (n: string) => `{"title":${n},"content":"x"}`],
      ['an object 1,000 deep in metadata', 1_000, 'object', (n: string) => `{"title":"t","content":"x","metadata":{"k":${n}}}`],
    ] as const)('%s → 400 invalid_parameter', async (_label, depth, kind, wrap) => {
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const err = expectError(await raw('post', '/v1/documents', wrap(nested(depth, kind))), 400, 'invalid_parameter');
        expect(err.message).toMatch(/nested too deeply: at most 32 levels/);
        expect(errors).not.toHaveBeenCalled();
      } finally {
        errors.mockRestore();
      }
    });

    it('on every route that takes a body, PATCH and the signing routes included', async () => {
      const doc = await createDoc(c);
      expectError(await raw('patch', `/v1/documents/${doc.id}`, `{"metadata":${nested(5_000, 'object')}}`), 400, 'invalid_parameter');
      expectError(await raw('put', `/v1/documents/${doc.id}/fields`, `{"fields":${nested(5_000, 'array')}}`), 400, 'invalid_parameter');
      const sent = await sentWith(c, [{ name: '갑', auth: 'none' }]);
      const sign = await t.http.post(`/v1/signing/${sent.p['갑'].token}/sign`).set('Content-Type', 'application/json').send(nested(50_000, 'object'));
      expectError(sign, 400, 'invalid_parameter');
    });

    it('ordinary nesting is still accepted', async () => {
      const doc = await createDoc(c);
      const p = await addParticipant(c, doc.id);
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 1, y: 1, width: 10, height: 5 }] }), 200);
    });
  });

  describe('bounded work before validation (issue 33 §9, §10)', () => {
    const emptyObjects = (n: number) => `[${'{},'.repeat(n - 1)}{}]`;
    let validate: jest.SpyInstance;
    beforeEach(() => {
      validate = jest.spyOn(classValidator, 'validate');
    });
    afterEach(() => validate.mockRestore());

    it.each([
      ['3,000,000 (9 MB)', 3_000_000],
      ['300,000', 300_000],
      ['30,000', 30_000],
      ['501', 501],
    ])('PUT /documents/{id}/fields with %s empty objects → 400 naming fields, no element validated', async (_label, n) => {
      const doc = await createDoc(c);
      validate.mockClear();
      const err = expectError(await raw('put', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(n)}}`), 400, 'invalid_parameter', 'fields');
      expect(err.message).toMatch(/more than 1,000 elements|no more than 500 elements/);
      expect(validate).not.toHaveBeenCalled();
    });

    it('the 9 MB body and the 100,000-key brand are refused as they arrive: never held whole, no buffer of 64 KiB or more put together', async () => {
      // The JSON parser used to buffer the whole body and copy it into one Buffer before its
      // elements were counted: 9 MB allocated and copied per request, and the GC after it, were
      // most of the server's time for such a body (docs/BENCHMARKS.md, "Hostile bodies").
      const doc = await createDoc(c);
      const concat = jest.spyOn(Buffer, 'concat');
      try {
        expectError(await raw('put', `/v1/documents/${doc.id}/fields`, `{"fields":${emptyObjects(3_000_000)}}`), 400, 'invalid_parameter', 'fields');
        const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',');
        expectError(await raw('patch', '/v1/organization', `{"brand":{${keys}}}`), 400, 'invalid_parameter', 'brand');
        const joined = concat.mock.results.map((r) => (Buffer.isBuffer(r.value) ? r.value.length : 0));
        expect(joined.filter((length) => length >= 65_536)).toEqual([]);
      } finally {
        concat.mockRestore();
      }
      // A body within the limits is still read whole and parsed, the same connection kept.
      const p = await addParticipant(c, doc.id);
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields: [{ participant_id: p.id, type: 'signature', page: 1, x: 5, y: 60, width: 20, height: 8 }] }), 200);
    });

    it('template fields and roles, participants/batch, parts, a brand list or a brand of 100,000 keys → 400 naming the parameter, nothing validated', async () => {
      const doc = await createDoc(c);
      const tmpl = expectStatus(await c.post('/templates', { name: '근로계약서', content: '<p>{{name}}</p>' }), 201).body;
      validate.mockClear();
      expectError(await raw('post', '/v1/templates', `{"name":"t","content":"x","fields":${emptyObjects(30_000)}}`), 400, 'invalid_parameter', 'fields');
      expectError(await raw('post', '/v1/templates', `{"name":"t","content":"x","roles":${emptyObjects(51)}}`), 400, 'invalid_parameter', 'roles');
      expectError(await raw('patch', `/v1/templates/${tmpl.id}`, `{"roles":${emptyObjects(30_000)}}`), 400, 'invalid_parameter', 'roles');
      expectError(await raw('post', `/v1/documents/${doc.id}/participants/batch`, `{"participants":${emptyObjects(30_000)}}`), 400, 'invalid_parameter', 'participants');
      expectError(await raw('patch', `/v1/documents/${doc.id}`, `{"parts":${emptyObjects(11)}}`), 400, 'invalid_parameter', 'parts');
      expectError(await raw('patch', '/v1/organization', `{"brand":[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]}`), 400, 'invalid_parameter', 'brand');
      expectError(await raw('patch', '/v1/organization', `{"brand":[${Array.from({ length: 999 }, (_, i) => i).join(',')}]}`), 400, 'invalid_parameter', 'brand');
      const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',');
      expectError(await raw('patch', '/v1/organization', `{"brand":{${keys}}}`), 400, 'invalid_parameter', 'brand');
      expectError(await raw('post', '/v1/bulk_sends', `{"template_id":"${tmpl.id}","dry_run":true,"rows":${emptyObjects(10_001)}}`), 400, 'invalid_parameter', 'rows');
      expect(validate).not.toHaveBeenCalled();
    });

    describe('a refused body is read off within a bound, then its connection closed (issue 33 §7)', () => {
      const MiB = 1024 * 1024;
      let port: number;
      beforeAll(async () => {
        const server = t.app.getHttpServer();
        if (!server.address()) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        port = (server.address() as AddressInfo).port;
      });

      it('Node\'s fetch sending the 9 MB body reads its 400 naming fields, on a connection the server closes after it', async () => {
        const doc = await createDoc(c);
        const res = await fetch(`http://127.0.0.1:${port}/v1/documents/${doc.id}/fields`, {
          method: 'PUT',
          headers: { ...bearer(org.test), 'Content-Type': 'application/json' },
          body: `{"fields":${emptyObjects(3_000_000)}}`,
        });
        expect(res.status).toBe(400);
        expect(res.headers.get('connection')).toBe('close');
        expect(((await res.json()) as { error: { param: string } }).error).toMatchObject({ code: 'invalid_parameter', param: 'fields' });
      });

      it.each([
        ['elements without end → 400 naming fields', '{"fields":[', '{},', 400, 'fields'],
        ['one string without end → 413 past 10 MB', '{"title":"', 'a', 413, undefined],
      ])('a chunked body of %s, answered while it still arrives; the server closes the connection after the bound', async (_label, head, unit, status, param) => {
        // Before, the answer waited for the body's end, so a body that never ends was never answered.
        const doc = await createDoc(c);
        const res = await sendEndlessBody({
          port,
          method: 'PUT',
          path: `/v1/documents/${doc.id}/fields`,
          headers: { ...bearer(org.test), 'Content-Type': 'application/json' },
          head: Buffer.from(head),
          filler: Buffer.from(unit.repeat(Math.floor(64 * 1024 / unit.length))),
          maxBytes: 10 * MiB + REFUSED_BODY_DRAIN.bytes + 64 * MiB,
        });
        expect(res.status).toBe(status);
        expect(res.headers.connection).toBe('close');
        const error = JSON.parse(res.body).error;
        if (param) expect(error).toMatchObject({ code: 'invalid_parameter', param });
        else expect(error).toMatchObject({ code: 'request_too_large' });
        expect(res.closedByServer).toBe(true);
        // Past the answer: the bound, and what the two sockets' kernel buffers held on top.
        expect(res.sent - (res.sentAtAnswer ?? 0)).toBeLessThan(REFUSED_BODY_DRAIN.bytes + 16 * MiB);
      });

      it('a declared Content-Length over 10 MB → 413 before any body byte, and the connection closed', async () => {
        const doc = await createDoc(c);
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        let answer = '';
        let closed = false;
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
        socket.on('close', () => (closed = true));
        socket.on('error', () => undefined);
        socket.write(`PUT /v1/documents/${doc.id}/fields HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${org.test}\r\nContent-Type: application/json\r\nContent-Length: ${20 * MiB}\r\n\r\n`);
        try {
          // Polls: the answer needs no byte of the body (before, it waited for all 20 MiB of it).
          for (let i = 0; i < 200 && !answer.includes('request_too_large'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
          expect(answer).toMatch(/^HTTP\/1\.1 413 /);
          expect(answer).toMatch(/\r\nConnection: close\r\n/i);
          expect(answer).toContain('"code":"request_too_large"');
          // The server closes the connection when the drain's time is up; a byte of body now and then
          // (a slow client) is what shows this side that its peer is gone.
          for (let i = 0; i < 400 && !closed; i++) {
            if (socket.writable) socket.write('{');
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          expect(closed).toBe(true);
        } finally {
          socket.destroy();
        }
      }, 60_000);

      it('a body that drips without end after its 1,001st element: answered 400, and closed when the drain\'s time is up', async () => {
        const doc = await createDoc(c);
        const drips = 200;
        const res = await sendEndlessBody({
          port,
          method: 'PUT',
          path: `/v1/documents/${doc.id}/fields`,
          headers: { ...bearer(org.test), 'Content-Type': 'application/json' },
          head: Buffer.from(`{"fields":[${'{},'.repeat(1_001)}`),
          filler: Buffer.from('{},'),
          pauseMs: 100,
          // Far more drips than the drain's time takes; the client gives up after them.
          maxBytes: 3 * 1_001 + 11 + 3 * drips,
        });
        expect(REFUSED_BODY_DRAIN.ms).toBeLessThan(drips * 100 / 2);
        expect(res.status).toBe(400);
        expect(JSON.parse(res.body).error).toMatchObject({ code: 'invalid_parameter', param: 'fields' });
        expect(res.headers.connection).toBe('close');
        expect(res.closedByServer).toBe(true);
      }, 60_000);
    });

    it('the largest lists a route takes are still accepted', async () => {
      const doc = await createDoc(c);
      const p = await addParticipant(c, doc.id);
      const fields = Array.from({ length: 500 }, (_, i) => ({ participant_id: p.id, type: 'text', page: 1, x: 1 + (i % 20) * 4, y: 1 + Math.floor(i / 20) * 3, width: 3, height: 2 }));
      expectStatus(await c.put(`/documents/${doc.id}/fields`, { fields }), 200);
    });
  });

  describe('bidirectional text controls in names that reach messages (issue 33 §14)', () => {
    it.each([
      ['U+202E', '\u202eknaB'],
      ['U+2066…2069', '도장\u2066은행\u2069'],
      ['U+200F', '\u200f은행'],
    ])('brand.display_name with %s → 400 naming it, and the brand is unchanged', async (_label, name) => {
      const before = expectStatus(await c.get('/organization'), 200).body.brand;
      expectError(await c.patch('/organization', { brand: { display_name: name } }), 400, 'invalid_parameter', 'display_name');
      expect(expectStatus(await c.get('/organization'), 200).body.brand).toEqual(before);
    });

    it('a participant name with an override → 400 naming it; Korean names are fine', async () => {
      const doc = await createDoc(c);
      expectError(await c.post(`/documents/${doc.id}/participants`, { name: '홍\u202e동길', email: 'hong@example.com', auth: 'none' }), 400, 'invalid_parameter', 'name');
      expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '홍길동', email: 'hong@example.com', auth: 'none' }), 201);
    });
  });

  describe('names that are object built-ins', () => {
    it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('GET /sign/assets/%s → 404 in the envelope', async (name) => {
      expectError(await t.http.get(`/sign/assets/${name}`), 404, 'resource_not_found');
    });

    it.each(['constructor', '__proto__', 'toString'])('GET /docs/assets/%s → 404 in the envelope', async (name) => {
      expectError(await t.http.get(`/docs/assets/${name}`), 404, 'resource_not_found');
    });

    it('the real signing page assets are still served', async () => {
      const res = await t.http.get('/sign/assets/main.js');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/javascript/);
    });

    it.each(['toString', 'valueOf', 'isPrototypeOf', 'hasOwnProperty'])('a metadata key %s is refused with 400, not dropped', async (key) => {
      const create = await raw('post', '/v1/documents', `{"title":"t","content":"x","metadata":{"${key}":"v","ok":"1"}}`);
      const err = expectError(create, 400, 'invalid_parameter', `metadata.${key}`);
      expect(err.message).toContain(key);
      const doc = await createDoc(c);
      expectError(await raw('patch', `/v1/documents/${doc.id}`, `{"metadata":{"${key}":"v"}}`), 400, 'invalid_parameter', `metadata.${key}`);
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.metadata).toEqual({});
    });

    it('a template variable named toString is a variable like any other, not dropped (issue 24 §20)', async () => {
      const tmpl = expectStatus(await c.post('/templates', { name: '변수', content: '<p>{{name}} {{toString}}</p>' }), 201).body;
      const doc = expectStatus(await raw('post', '/v1/documents', `{"title":"t","from_template":"${tmpl.id}","variables":{"name":"홍","toString":"x"}}`), 201).body;
      expect(doc.content).toBe('<p>홍 x</p>');
    });
  });

  describe('signature and seal images over the stamper pixel limit', () => {
    const huge = greyPng16(4000, 4000);

    it('a 4000×4000 16-bit PNG signature → 400 naming the limit, and nothing signed', async () => {
      const sent = await sentWith(c, [{ name: '갑', auth: 'none' }]);
      const s = signer(t, sent.p['갑'].token);
      const err = expectError(await s.sign({ consent: true, signature: huge }), 400, 'invalid_parameter', 'signature');
      expect(err.message).toContain('4000×4000');
      expect(err.message).toContain('10000000 pixels');
      expectError(await s.sign({ consent: true, signature: greyPng16(40, 20), seal_image: huge }), 400, 'invalid_parameter', 'seal_image');
      const types = (await t.infra.events.readStream(`document-${sent.id}`)).map((e) => e.type);
      expect(types).not.toContain('ParticipantSigned');
      // A 16-bit PNG within the limit signs and completes the document.
      expectStatus(await s.sign({ consent: true, signature: greyPng16(400, 200) }), 200);
      expect(expectStatus(await c.get(`/documents/${sent.id}`), 200).body.status).toBe('completed');
    });

    it('an uploaded seal over the limit is refused when uploaded, not when a signature uses it', async () => {
      const err = expectError(await c.post('/seals', { source: 'uploaded', name: '큰 도장', type: 'usage', image: huge }), 400, 'invalid_parameter', 'image');
      expect(err.message).toContain('10000000 pixels');
    });
  });

  describe('multipart bodies', () => {
    it('an upload without the closing boundary → 400 in the envelope', async () => {
      const body = [
        '--XyZboundary',
        'Content-Disposition: form-data; name="file"; filename="a.pdf"',
        'Content-Type: application/pdf',
        '',
        '%PDF-1.4 not finished',
      ].join('\r\n');
      const res = await t.http.post('/v1/files').set(bearer(org.test)).set('Content-Type', 'multipart/form-data; boundary=XyZboundary').send(body);
      expectError(res, 400, 'invalid_parameter', 'file');
    });

    it('a body that ends inside the part headers → 400 in the envelope', async () => {
      const body = '--XyZboundary\r\nContent-Disposition: form-data; name="file"; filen';
      const res = await t.http.post('/v1/files').set(bearer(org.test)).set('Content-Type', 'multipart/form-data; boundary=XyZboundary').send(body);
      expectError(res, 400, 'invalid_parameter', 'file');
    });
  });

  describe('requests Node refuses before routing', () => {
    it('an oversized header → 431 with the JSON envelope', async () => {
      const res = await t.http.get('/v1/documents').set(bearer(org.test)).set('X-Padding', 'a'.repeat(20_000));
      expect(res.status).toBe(431);
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.body).toEqual({ error: { type: 'invalid_request_error', code: 'request_header_too_large', message: expect.any(String), request_id: expect.stringMatching(/^req_[0-9a-f]{24}$/) } });
      expect(res.headers['request-id']).toBe(res.body.error.request_id);
    });

    it('an oversized URL → 431 with the JSON envelope', async () => {
      const res = await t.http.get(`/v1/documents?starting_after=${'x'.repeat(20_000)}`).set(bearer(org.test));
      expect(res.status).toBe(431);
      expect(res.body.error.code).toBe('request_header_too_large');
    });
  });

  describe('X-Content-Type-Options: nosniff', () => {
    it('is on JSON, errors, PDFs and the signing page', async () => {
      const doc = await createDoc(c);
      const responses = await Promise.all([
        c.get(`/documents/${doc.id}`),
        c.get('/documents/00000000-0000-4000-8000-000000000000'),
        t.http.get('/v1/documents'),
        t.http.get('/v1/no-such-route'),
        c.get(`/documents/${doc.id}/file`),
        t.http.get('/sign/some-token'),
        t.http.get('/v1/health'),
      ]);
      expect(responses.map((r) => r.status)).toEqual([200, 404, 401, 404, 200, 200, expect.any(Number)]);
      for (const r of responses) expect(r.headers['x-content-type-options']).toBe('nosniff');
    });
  });

  describe('participants per document', () => {
    it('the 51st participant added one by one is refused with 400 participant_limit_exceeded', async () => {
      const doc = await createDoc(c);
      expectStatus(await c.post(`/documents/${doc.id}/participants/batch`, { participants: Array.from({ length: 49 }, (_, i) => ({ name: `참가자 ${i}`, auth: 'none' })) }), 201);
      expectStatus(await c.post(`/documents/${doc.id}/participants`, { name: '쉰째', auth: 'none' }), 201);
      const err = expectError(await c.post(`/documents/${doc.id}/participants`, { name: '쉰한째', auth: 'none' }), 400, 'participant_limit_exceeded', 'participants');
      expect(err.message).toContain('at most 50');
      expectError(await c.post(`/documents/${doc.id}/participants/batch`, { participants: [{ name: 'a', auth: 'none' }] }), 400, 'participant_limit_exceeded');
      expect(expectStatus(await c.get(`/documents/${doc.id}`), 200).body.participants).toHaveLength(50);
    });
  });

  describe('a 500', () => {
    it('answers the generic envelope: neither the exception message nor a stack reaches the client', async () => {
      const put = t.infra.blobs.put.bind(t.infra.blobs);
      const failure = new Error('disk on fire at /var/lib/dojang/blobs');
      t.infra.blobs.put = async () => {
        throw failure;
      };
      const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
      try {
        const res = await c.post('/seals', { source: 'generated', company_name: '불난 디스크' });
        const err = expectError(res, 500, 'internal_error');
        expect(err.type).toBe('api_error');
        expect(err.message).toBe('Something went wrong on our side. Try again later.');
        expect(res.text).not.toContain('disk on fire');
        expect(res.text).not.toContain('/var/lib/dojang');
        for (const line of (failure.stack ?? '').split('\n').slice(1, 4)) expect(res.text).not.toContain(line.trim());
        expect(res.text).not.toMatch(/\bat .+:\d+:\d+/);
        expect(res.text).not.toMatch(/\.ts\b|node_modules/);
      } finally {
        t.infra.blobs.put = put;
        errors.mockRestore();
      }
    });
  });
});
