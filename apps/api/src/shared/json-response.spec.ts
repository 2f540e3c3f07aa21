import express from 'express';
import request from 'supertest';
import { EncodedStrings, encodeJson, useEncodedStrings } from './json-response';

const body = '<h3>제1조 (목적)</h3><p>갑과 을은 "성실히" 이행한다.\n\t\\ 😀 \u2028</p>'.repeat(200);

describe('JSON responses with long strings encoded once', () => {
  const plain = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');

  it('writes byte for byte what JSON.stringify and UTF-8 give', () => {
    const strings = new EncodedStrings();
    const values: unknown[] = [
      { object: 'list', data: [{ id: 'a', content: body, title: '계약' }, { id: 'b', content: body, nested: { again: body } }], has_more: false },
      [body, 'short', null, 1.5, true, { deep: [[body]] }],
      body,
      { content: `${body}\ud800`, key: body.slice(0, 4095) },
      { date: new Date(0), missing: undefined, fn: () => 1 },
      'plain',
      null,
    ];
    for (const value of values) {
      expect(encodeJson(value, strings).equals(plain(value))).toBe(true);
      // The second time from the kept copies, still the same bytes.
      expect(encodeJson(value, strings).equals(plain(value))).toBe(true);
    }
  });

  it('keeps one encoded copy per string and hands the same one out again', () => {
    const strings = new EncodedStrings();
    const first = strings.get(body);
    expect(strings.get(body)).toBe(first);
    expect(first.equals(plain(body))).toBe(true);
  });

  it('forgets the least recently used copies past its capacity', () => {
    const size = plain(body).length;
    const strings = new EncodedStrings(size * 4 + 100);
    const texts = Array.from({ length: 6 }, (_, i) => `${i}${body}`);
    const copies = texts.map((t) => strings.get(t));
    expect(strings.get(texts[5])).toBe(copies[5]);
    expect(strings.get(texts[0])).not.toBe(copies[0]);
  });

  it('treats a client string that looks like a marker as text', () => {
    const strings = new EncodedStrings();
    const nonce = 'dojang-long-string-test-';
    const value = { a: `${nonce}0`, b: body, c: `"${nonce}1"`, d: body };
    expect(encodeJson(value, strings, nonce).equals(plain(value))).toBe(true);
  });

  it('answers through Express with the headers Express gives JSON, ETag included', async () => {
    const stock = express();
    stock.get('/', (_req, res) => void res.json({ content: body }));
    const ours = express();
    useEncodedStrings(ours.response);
    ours.get('/', (_req, res) => void res.json({ content: body }));
    ours.get('/typed', (_req, res) => void res.type('application/problem+json').json({ content: body }));
    const [a, b, typed] = await Promise.all([request(stock).get('/'), request(ours).get('/'), request(ours).get('/typed')]);
    expect(b.status).toBe(200);
    expect(b.headers['content-type']).toBe(a.headers['content-type']);
    expect(b.headers['content-length']).toBe(a.headers['content-length']);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.text).toBe(a.text);
    expect(typed.headers['content-type']).toBe('application/problem+json; charset=utf-8');
  });
});
