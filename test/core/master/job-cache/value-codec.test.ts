import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from '../../../../src/core/master/job-cache';
import { codeOf } from '../../../support/errors';

const roundTrip = (v: unknown) => decodeValue(encodeValue(v));

describe('job cache value codec', () => {
  it('keeps JSON values as they are', () => {
    const v = { a: [1, 2.5, -3, 'x', true, false, null], nested: { deep: { s: 'é😀' } } };
    expect(encodeValue(v)).toBe(JSON.stringify(v));
    expect(roundTrip(v)).toEqual(v);
  });

  it('stores bytes as {"$bytes_b64": ...} and gives back a Buffer', () => {
    expect(encodeValue(Buffer.from([0xff, 0x00, 0x80]))).toBe('{"$bytes_b64":"/wCA"}');
    const back = roundTrip({ sig: Buffer.from([1, 2, 3]), u8: new Uint8Array([9, 8]) }) as Record<string, Buffer>;
    expect(Buffer.isBuffer(back.sig)).toBe(true);
    expect(back.sig).toEqual(Buffer.from([1, 2, 3]));
    expect(back.u8).toEqual(Buffer.from([9, 8]));
    // A view into a larger buffer: only its own bytes.
    const big = Buffer.from('0123456789');
    expect(roundTrip(big.subarray(2, 4))).toEqual(Buffer.from('23'));
  });

  it('stores bigints as decimal text', () => {
    expect(encodeValue(2n ** 64n)).toBe('"18446744073709551616"');
    expect(roundTrip([-(2n ** 63n)])).toEqual(['-9223372036854775808']);
  });

  it('keeps Maps with non-string keys, and non-finite floats', () => {
    const m = new Map<unknown, unknown>([
      [1, 'one'],
      ['k', Buffer.from('v')],
    ]);
    expect(roundTrip(m)).toEqual(m);
    expect(roundTrip([NaN, Infinity, -Infinity])).toEqual([NaN, Infinity, -Infinity]);
  });

  it('an object that looks like a tag comes back as that object', () => {
    for (const v of [{ $bytes_b64: 'AAAA' }, { $map: 5 }, { $float: 'NaN' }, { $obj: { a: 1 } }]) {
      expect(roundTrip(v)).toEqual(v);
    }
    // Two keys is no tag.
    expect(encodeValue({ $bytes_b64: 'x', y: 1 })).toBe('{"$bytes_b64":"x","y":1}');
  });

  it('keeps a key named __proto__ as an ordinary key', () => {
    const v = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const back = roundTrip(v) as Record<string, unknown>;
    expect(Object.keys(back)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stores undefined as null and Dates as ISO text', () => {
    expect(roundTrip([undefined, new Date('2026-12-02T13:13:09.576Z')])).toEqual([null, '2026-12-02T13:13:09.576Z']);
    expect(roundTrip({ a: undefined })).toEqual({ a: null });
  });

  it('refuses what msgpack never yields, naming where', () => {
    expect(codeOf(() => encodeValue({ f: () => 1 }))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => encodeValue(Symbol('s')))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => encodeValue(new Set([1])))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => encodeValue(new Date(NaN)))).toBe('BAD_JOB_CACHE_VALUE');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(codeOf(() => encodeValue(cyclic))).toBe('BAD_JOB_CACHE_VALUE');
    expect(() => encodeValue({ a: [{ f: () => 1 }] })).toThrow(/\$\.a\[0\]\.f/);
  });

  it('a value shared twice (not a cycle) is fine', () => {
    const shared = { x: 1 };
    expect(roundTrip([shared, shared])).toEqual([{ x: 1 }, { x: 1 }]);
  });

  it('refuses text it did not write', () => {
    expect(codeOf(() => decodeValue('{nope'))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => decodeValue('{"$bytes_b64": 5}'))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => decodeValue('{"$float": "1.5"}'))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => decodeValue('{"$map": [[1]]}'))).toBe('BAD_JOB_CACHE_VALUE');
    expect(codeOf(() => decodeValue('{"$obj": [1]}'))).toBe('BAD_JOB_CACHE_VALUE');
  });
});
