import { ApiError } from './api-error';
import { assertJsonCounts, BULK_SEND_JSON_COUNT_LIMITS, DEFAULT_JSON_COUNT_LIMITS, JsonCounter, JsonCountLimits, jsonCountLimitsFor } from './json-count-guard';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** The ApiError assertJsonCounts throws for `text`, or null. */
function refusal(text: string, limits = DEFAULT_JSON_COUNT_LIMITS): ApiError | null {
  try {
    assertJsonCounts(bytes(text), limits);
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

const emptyObjects = (n: number) => `[${'{},'.repeat(n - 1)}{}]`;

describe('assertJsonCounts (elements counted on the raw body before it is parsed)', () => {
  it('refuses the 9 MB body of three million empty objects after reading about 1,000 of them, naming the list', () => {
    const body = bytes(`{"fields":${emptyObjects(3_000_000)}}`);
    expect(body.length).toBeGreaterThan(9_000_000);
    let reads = 0;
    // Counts the bytes the scan reads: it stops at the first element over the limit.
    const counted = new Proxy(body, {
      get(target, key) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        const v = Reflect.get(target, key) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    let error: unknown;
    try {
      assertJsonCounts(counted, DEFAULT_JSON_COUNT_LIMITS);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).param).toBe('fields');
    expect(reads).toBeLessThan(4_000);
  });

  it.each([
    ['300,000', 300_000],
    ['30,000', 30_000],
    ['1,001', 1_001],
  ])('refuses %s elements in one list, naming it', (_label, n) => {
    expect(refusal(`{"fields":${emptyObjects(n)}}`)).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'fields' });
  });

  it('accepts 1,000 elements, and 10,000 on the bulk send route only', () => {
    expect(refusal(`{"fields":${emptyObjects(1_000)}}`)).toBeNull();
    const rows = `{"rows":${emptyObjects(10_000)}}`;
    expect(refusal(rows)).toMatchObject({ param: 'rows' });
    expect(refusal(rows, jsonCountLimitsFor('POST', '/v1/bulk_sends'))).toBeNull();
    expect(refusal(`{"rows":${emptyObjects(10_001)}}`, BULK_SEND_JSON_COUNT_LIMITS)).toMatchObject({ param: 'rows' });
    expect(jsonCountLimitsFor('POST', '/v1/documents')).toBe(DEFAULT_JSON_COUNT_LIMITS);
    expect(jsonCountLimitsFor('GET', '/v1/bulk_sends')).toBe(DEFAULT_JSON_COUNT_LIMITS);
  });

  it('names nested lists as parameters are named: brand, parts[1].x, a key with an escaped quote', () => {
    expect(refusal(`{"brand":[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]}`)).toMatchObject({ param: 'brand' });
    expect(refusal(`{"parts":[{"x":1},{"x":${emptyObjects(1_001)}}]}`)).toMatchObject({ param: 'parts[1].x' });
    expect(refusal(`{"a\\"b":${emptyObjects(1_001)}}`)).toMatchObject({ param: 'a"b' });
    expect(refusal(emptyObjects(1_001))).toMatchObject({ param: 'body' });
  });

  it('refuses an object of 100,000 keys, naming it', () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"k${i}":1`).join(',');
    expect(refusal(`{"brand":{${keys}}}`)).toMatchObject({ status: 400, param: 'brand' });
  });

  it('refuses a body of more values than any request needs, naming the top-level parameter', () => {
    const inner = `[${Array.from({ length: 900 }, () => '0').join(',')}]`;
    const body = `{"fields":[${Array.from({ length: 200 }, () => inner).join(',')}]}`;
    expect(refusal(body)).toMatchObject({ param: 'fields' });
  });

  it('does not count commas, brackets or quotes inside strings, nor bytes of Korean text', () => {
    const tricky = JSON.stringify({ title: '[{,}]'.repeat(2_000) + '"\\'.repeat(500) + '계약서,'.repeat(3_000), list: ['a,b', '[', '{'] });
    expect(refusal(tricky)).toBeNull();
    // An object with 999 keys and one list of 999 strings full of commas is within the limits.
    const keys = Array.from({ length: 999 }, (_, i) => `"k${i}":"a,b,c"`).join(',');
    expect(refusal(`{${keys}}`)).toBeNull();
  });

  it('leaves a malformed body to JSON.parse', () => {
    for (const text of ['{"a":', '[[[', '"unterminated', '}]', '{"a" 1}']) expect(refusal(text)).toBeNull();
  });

  describe('counted as the body arrives (JsonCounter, chunk by chunk)', () => {
    /** The param of the refusal when `text` arrives cut at `cuts` (byte offsets), or null. */
    const chunkedRefusal = (text: string, cuts: number[], limits: JsonCountLimits): string | null => {
      const body = bytes(text);
      const counter = new JsonCounter(limits);
      try {
        let from = 0;
        for (const cut of [...cuts, body.length]) {
          counter.write(body.subarray(from, cut));
          from = cut;
        }
        return null;
      } catch (err) {
        if (err instanceof ApiError) return err.param ?? 'none';
        throw err;
      }
    };
    const small: JsonCountLimits = { items: 3, keys: 3, values: 40 };
    const bodies = [
      '{"fields":[{},{},{},{}]}',
      '{"a\\"b":[1,2,3,4]}',
      '{"긴 이름":{"k1":1,"k2":"x,y","k3":[],"k4":null}}',
      '{"parts":[{"x":1},{"x\\\\":[{},{},{},{}]}]}',
      '{"t":"[{,}]\\"\\\\","l":["a,b","[","{"]}',
      '[[1,2],[3,"4\\"",5,6]]',
      '{"ok":[1,2,3],"also":{"a":true,"b":false}}',
    ];

    it('gives the same answer wherever the body is cut, keys and escapes cut in two included', () => {
      for (const text of bodies) {
        const whole = chunkedRefusal(text, [], small);
        const length = bytes(text).length;
        for (let cut = 0; cut <= length; cut++) expect([text, cut, chunkedRefusal(text, [cut], small)]).toEqual([text, cut, whole]);
        // One byte at a time.
        expect([text, 'bytewise', chunkedRefusal(text, Array.from({ length }, (_, k) => k), small)]).toEqual([text, 'bytewise', whole]);
      }
      // The bodies above do exercise both answers.
      expect(bodies.map((text) => chunkedRefusal(text, [], small))).toEqual(['fields', 'a"b', '긴 이름', 'parts[1].x\\', null, '[1]', null]);
    });

    it('refuses the 9 MB body within its first chunk, before the rest has arrived', () => {
      const body = bytes(`{"fields":${emptyObjects(3_000_000)}}`);
      const counter = new JsonCounter(DEFAULT_JSON_COUNT_LIMITS);
      // Node hands an HTTP body over in chunks of up to 64 KiB; the 1,001st element is in the first.
      expect(() => counter.write(body.subarray(0, 65_536))).toThrow(ApiError);
    });

    it('names a key longer than any param name by a placeholder rather than keeping it whole', () => {
      const key = 'k'.repeat(200_000);
      expect(chunkedRefusal(`{"${key}":${emptyObjects(1_001)}}`, [10, 70_000, 140_000], DEFAULT_JSON_COUNT_LIMITS)).toBe('?');
      expect(chunkedRefusal(`{"${'k'.repeat(500)}":${emptyObjects(1_001)}}`, [10, 300], DEFAULT_JSON_COUNT_LIMITS)).toBe('k'.repeat(500));
    });
  });
});
