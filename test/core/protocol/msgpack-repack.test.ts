/** repackForSignature against the bytes Salt 3007.10's own code makes (see signature-vectors.ts). */
import { describe, expect, it } from 'vitest';
import { repackForSignature } from '../../../src/core/protocol/msgpack-repack';
import { encode } from '../../../src/core/protocol/msgpack';
import { ProtocolError } from '../../../src/core/errors';
import { codeOf as codeOfAny } from '../../support/errors';

import { CHECKED, PLAIN, SIGNED } from './signature-vectors';

const codeOf = (fn: () => unknown) => codeOfAny(fn, ProtocolError);
describe('repackForSignature', () => {
  it("gives the bytes Salt's master checks, from the wire's raw strings (str8, bin for non-UTF-8, 1.0 a float)", () => {
    expect(repackForSignature(PLAIN, new Set(['nonce', 'tok', 'sig'])).toString('hex')).toBe(CHECKED.toString('hex'));
  });

  it('gives the bytes a Salt minion signed, once what its channel and event bus added is left out', () => {
    expect(repackForSignature(PLAIN, new Set(['nonce', 'tok', 'sig', 'ts', '_stamp'])).toString('hex')).toBe(SIGNED.toString('hex'));
  });

  it('writes integers in their smallest form and float32 as float64, as Python repacks them', () => {
    // {a: uint32 5, b: int16 -3, c: float32 1.5}
    const plain = Buffer.from([0x83, 0xa1, 0x61, 0xce, 0, 0, 0, 5, 0xa1, 0x62, 0xd1, 0xff, 0xfd, 0xa1, 0x63, 0xca, 0x3f, 0xc0, 0, 0]);
    const f64 = Buffer.alloc(8);
    f64.writeDoubleBE(1.5);
    expect(repackForSignature(plain, new Set())).toEqual(
      Buffer.concat([Buffer.from([0x83, 0xa1, 0x61, 0x05, 0xa1, 0x62, 0xfd, 0xa1, 0x63, 0xcb]), f64]),
    );
  });

  it('keeps 64-bit integers exact and turns a map of 16 entries or more into map16', () => {
    const big = { n: 2n ** 63n - 1n, m: -(2n ** 63n) };
    const plain = encode(big);
    expect(repackForSignature(plain, new Set())).toEqual(plain);
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    const repacked = repackForSignature(encode({ ...many, sig: 'x' }), new Set(['sig']));
    expect(repacked.subarray(0, 3)).toEqual(Buffer.from([0xde, 0, 20]));
    expect(repacked.subarray(3)).toEqual(encode(many).subarray(3));
  });

  it('refuses what is not one map, or is cut short, with a ProtocolError', () => {
    expect(codeOf(() => repackForSignature(encode([1, 2]), new Set()))).toBe('BAD_LOAD');
    expect(codeOf(() => repackForSignature(PLAIN.subarray(0, 40), new Set()))).toBe('MSGPACK_TRUNCATED');
    expect(codeOf(() => repackForSignature(Buffer.concat([encode({ a: 1 }), Buffer.from([0x01])]), new Set()))).toBe('MSGPACK_TRAILING');
  });
});
