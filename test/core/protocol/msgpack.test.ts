import { describe, expect, it } from 'vitest';
import { decode, encode, toBytes, valueEnd } from '../../../src/core/protocol/msgpack';
import { ProtocolError } from '../../../src/core/errors';
import { allMessages, fromJson, lastFrame, wireJson } from './wire-vectors';
import { codeOf as codeOfAny } from '../../support/errors';

const codeOf = (fn: () => unknown) => codeOfAny(fn, ProtocolError);

describe('msgpack against the salt-wire captures', () => {
  const messages = allMessages();

  it('finds the captured messages', () => {
    // 476 captured messages, of which ZMTP commands and omitted stubs carry no msgpack frames.
    expect(messages.length).toBeGreaterThan(400);
  });

  it('decodes every captured payload to the recorded value and re-encodes it byte for byte', () => {
    let checked = 0;
    for (const m of messages) {
      const payload = lastFrame(m);
      const value = decode(payload);
      expect(value, m.source).toEqual(fromJson(m.payload_msgpack_decoded));
      expect(encode(value).equals(payload), m.source).toBe(true);
      checked++;
    }
    expect(checked).toBe(messages.length);
  });

  it('frames request-port messages as empty delimiter + payload, publications as one frame', () => {
    for (const m of messages) {
      if (m.channel === 'req') {
        expect(m.zmq_frames_hex.length, m.source).toBe(2);
        expect(m.zmq_frames_hex[0], m.source).toBe('');
      } else {
        expect(m.channel, m.source).toBe('pub');
        expect(m.zmq_frames_hex.length, m.source).toBe(1);
      }
    }
  });

  it('round-trips every decrypted plaintext in crypto.json', () => {
    const vectors = wireJson('crypto.json').crypticle;
    expect(vectors.length).toBeGreaterThan(0);
    for (const v of vectors) {
      const bytes = Buffer.from(v.msgpack_hex, 'hex');
      const value = decode(bytes);
      expect(value, v.label).toEqual(fromJson(v.decoded));
      expect(encode(value).equals(bytes), v.label).toBe(true);
    }
  });

  it('never emits str8 or bin: 32..255-byte raws are str16, as Salt packs them', () => {
    expect(encode('a'.repeat(31))[0]).toBe(0xbf);
    expect(encode('a'.repeat(32)).subarray(0, 3)).toEqual(Buffer.from([0xda, 0x00, 0x20]));
    expect(encode(Buffer.alloc(96)).subarray(0, 3)).toEqual(Buffer.from([0xda, 0x00, 0x60]));
    expect(encode('x'.repeat(70000)).subarray(0, 5)).toEqual(Buffer.from([0xdb, 0x00, 0x01, 0x11, 0x70]));
  });
});

describe('msgpack values', () => {
  it('encodes integers in the smallest form', () => {
    const cases: Array<[number | bigint, string]> = [
      [0, '00'],
      [127, '7f'],
      [128, 'cc80'],
      [255, 'ccff'],
      [256, 'cd0100'],
      [65535, 'cdffff'],
      [65536, 'ce00010000'],
      [4294967295, 'ceffffffff'],
      [4294967296, 'cf0000000100000000'],
      [-1, 'ff'],
      [-32, 'e0'],
      [-33, 'd0df'],
      [-128, 'd080'],
      [-129, 'd1ff7f'],
      [-32768, 'd18000'],
      [-32769, 'd2ffff7fff'],
      [-2147483648, 'd280000000'],
      [-2147483649, 'd3ffffffff7fffffff'],
      [18446744073709551615n, 'cfffffffffffffffff'],
      [-9223372036854775808n, 'd38000000000000000'],
    ];
    for (const [n, hex] of cases) {
      expect(encode(n).toString('hex'), String(n)).toBe(hex);
      const back = decode(Buffer.from(hex, 'hex'));
      expect(back, hex).toEqual(
        typeof n === 'bigint' && n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n,
      );
    }
  });

  it('encodes fractions as float64 and reads float32', () => {
    expect(encode(1.5).toString('hex')).toBe('cb3ff8000000000000');
    expect(decode(Buffer.from('ca3fc00000', 'hex'))).toBe(1.5);
    expect(decode(Buffer.from('cb3ff8000000000000', 'hex'))).toBe(1.5);
  });

  it('handles nil, booleans, undefined, arrays, maps and Map in order', () => {
    expect(encode(null).toString('hex')).toBe('c0');
    expect(encode(undefined).toString('hex')).toBe('c0');
    expect(encode([true, false]).toString('hex')).toBe('92c3c2');
    expect(encode({ b: 1, a: 2 }).toString('hex')).toBe('82a16201a16102');
    expect(
      encode(
        new Map<unknown, unknown>([
          ['z', 1],
          [3, 'x'],
        ]),
      ).toString('hex'),
    ).toBe('82a17a0103a178');
    const big = Array.from({ length: 20 }, (_, i) => i);
    expect(encode(big).subarray(0, 3).toString('hex')).toBe('dc0014');
    expect(decode(encode(big))).toEqual(big);
  });

  it('keeps invalid UTF-8 as bytes and valid UTF-8 as text', () => {
    const bin = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const decoded = decode(encode(bin));
    expect(Buffer.isBuffer(decoded)).toBe(true);
    expect(decoded).toEqual(bin);
    expect(decode(encode('héllo ✓'))).toBe('héllo ✓');
    expect(toBytes('é')).toEqual(Buffer.from([0xc3, 0xa9]));
    expect(toBytes(bin)).toBe(bin);
  });

  it('decodes int keys into a Map and keeps __proto__ as plain data', () => {
    const m = decode(Buffer.from('82a16101 0102'.replace(/ /g, ''), 'hex'));
    expect(m).toBeInstanceOf(Map);
    expect([...(m as Map<unknown, unknown>).entries()]).toEqual([
      ['a', 1],
      [1, 2],
    ]);
    const o = decode(encode(JSON.parse('{"__proto__": {"polluted": 1}}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts str8 and bin from other packers', () => {
    expect(decode(Buffer.from('d903616263', 'hex'))).toBe('abc');
    expect(decode(Buffer.from('c403010203', 'hex'))).toEqual(Buffer.from([1, 2, 3]));
  });
});

describe('msgpack defensive decoding', () => {
  it('rejects truncated data', () => {
    expect(codeOf(() => decode(Buffer.alloc(0)))).toBe('MSGPACK_TRUNCATED');
    expect(codeOf(() => decode(Buffer.from('cd01', 'hex')))).toBe('MSGPACK_TRUNCATED');
    expect(codeOf(() => decode(Buffer.from('92cd01', 'hex')))).toBe('MSGPACK_TRUNCATED');
    expect(codeOf(() => decode(Buffer.from('da00', 'hex')))).toBe('MSGPACK_TRUNCATED');
    const frame = lastFrame(allMessages()[0]);
    for (let cut = 0; cut < frame.length; cut += 7) {
      const code = codeOf(() => decode(frame.subarray(0, cut)));
      expect(['MSGPACK_TRUNCATED', 'MSGPACK_LENGTH']).toContain(code);
    }
  });

  it('rejects declared lengths longer than the data', () => {
    expect(codeOf(() => decode(Buffer.from('dbffffffff41', 'hex')))).toBe('MSGPACK_LENGTH');
    expect(codeOf(() => decode(Buffer.from('ddffffffff', 'hex')))).toBe('MSGPACK_LENGTH');
    expect(codeOf(() => decode(Buffer.from('dfffffffff', 'hex')))).toBe('MSGPACK_LENGTH');
    expect(codeOf(() => decode(Buffer.from('a5616263', 'hex')))).toBe('MSGPACK_LENGTH');
    expect(codeOf(() => decode(Buffer.from('92c3', 'hex')))).toBe('MSGPACK_LENGTH');
  });

  it('rejects trailing bytes', () => {
    expect(codeOf(() => decode(Buffer.from('c0c0', 'hex')))).toBe('MSGPACK_TRAILING');
  });

  it('rejects depth bombs without blowing the stack', () => {
    expect(codeOf(() => decode(Buffer.alloc(100_000, 0x91)))).toBe('MSGPACK_DEPTH');
    const cyclic: unknown[] = [];
    cyclic.push(cyclic);
    expect(codeOf(() => encode(cyclic))).toBe('MSGPACK_DEPTH');
  });

  it("reads Salt's extension types: datetimes (78) as Python's str() of them, other types as their bytes", () => {
    // salt.payload.dumps({'when': datetime(2026,12,3,15,10,13,123456), 'day': date(2026,1,2), 'n': 1}) of Salt 3007.10
    const salt =
      '83a47768656ec7184e32303236313230335431353a31303a31332e313233343536a3646179c7184e32303236303130325430303a30303a30302e303030303030a16e01';
    expect(decode(Buffer.from(salt, 'hex'))).toEqual({ when: '2026-12-03 15:10:13.123456', day: '2026-01-02 00:00:00', n: 1 });
    expect(decode(Buffer.from('d40100', 'hex'))).toEqual(Buffer.from([0]));
    expect(decode(Buffer.from('c70101ff', 'hex'))).toEqual(Buffer.from([0xff]));
    // A Salt constant (79): (name, value) packed inside.
    expect(decode(Buffer.from('c7064f' + '92a178cd0100', 'hex'))).toBe(256);
    expect(codeOf(() => decode(Buffer.from('c7034e616263', 'hex')))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => decode(Buffer.from('c7ff4e00', 'hex')))).toBe('MSGPACK_LENGTH');
  });

  it('rejects the never-used byte and non-msgpackable values', () => {
    for (const hex of ['c1'])
      expect(
        codeOf(() => decode(Buffer.from(hex, 'hex'))),
        hex,
      ).toBe('MSGPACK_TYPE');
    expect(codeOf(() => decode(Buffer.from('81920102c0', 'hex')))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => encode(() => 1))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => encode(Symbol('x')))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => encode(new Date()))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => encode(2n ** 70n))).toBe('MSGPACK_TYPE');
    expect(codeOf(() => decode('c0' as unknown as Uint8Array))).toBe('MSGPACK_TYPE');
  });
});

describe('msgpack decode: map keys through the key cache', () => {
  it('gives every key back exactly, across more keys than the cache has slots (so slots are shared)', () => {
    const keys = Array.from({ length: 10_000 }, (_, i) => `k${i.toString(36)}${'x'.repeat(i % 20)}`);
    const map = Object.fromEntries(keys.map((k, i) => [k, i]));
    const bytes = encode(map);
    for (let round = 0; round < 2; round++) {
      const back = decode(bytes) as Record<string, number>;
      expect(Object.keys(back)).toEqual(keys);
      expect(keys.every((k, i) => back[k] === i)).toBe(true);
    }
  });

  it('keys of the same length and slot-mates stay distinct; non-ASCII, long and __proto__ keys too', () => {
    const value = { ab: 1, ba: 2, é: 3, ['y'.repeat(40)]: 4, nested: { ab: 5, ba: 6 } };
    expect(decode(encode(value))).toEqual(value);
    const proto = decode(Buffer.from([0x81, 0xa9, ...Buffer.from('__proto__'), 0x01])) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.keys(proto)).toEqual(['__proto__']);
  });

  it('a key cut short is still MSGPACK_LENGTH', () => {
    expect(() => decode(Buffer.from([0x81, 0xa5, 0x61, 0x62]))).toThrow(/declares 5 bytes/);
  });
});

describe('msgpack valueEnd: where a value ends in a stream', () => {
  /** Every msgpack type: each fixed and variable width, ext and fixext, nested. */
  const everyType: Buffer[] = [
    Buffer.from([0x05]),
    Buffer.from([0xff]),
    Buffer.from([0xc0]),
    Buffer.from([0xc2]),
    Buffer.from([0xc3]),
    Buffer.from([0xcc, 200]),
    Buffer.from([0xcd, 1, 2]),
    Buffer.from([0xce, 1, 2, 3, 4]),
    Buffer.from([0xcf, 1, 2, 3, 4, 5, 6, 7, 8]),
    Buffer.from([0xd0, 0x80]),
    Buffer.from([0xd1, 1, 2]),
    Buffer.from([0xd2, 1, 2, 3, 4]),
    Buffer.from([0xd3, 1, 2, 3, 4, 5, 6, 7, 8]),
    Buffer.from([0xca, 1, 2, 3, 4]),
    Buffer.from([0xcb, 1, 2, 3, 4, 5, 6, 7, 8]),
    Buffer.from([0xa3, 0x61, 0x62, 0x63]),
    Buffer.from([0xd9, 2, 0x61, 0x62]),
    Buffer.concat([Buffer.from([0xda, 0x01, 0x00]), Buffer.alloc(256, 0x61)]),
    Buffer.from([0xdb, 0, 0, 0, 1, 0x61]),
    Buffer.from([0xc4, 2, 9, 9]),
    Buffer.from([0xc5, 0, 1, 9]),
    Buffer.from([0xc6, 0, 0, 0, 1, 9]),
    Buffer.from([0xd4, 1, 9]),
    Buffer.from([0xd5, 1, 9, 9]),
    Buffer.from([0xd6, 1, 9, 9, 9, 9]),
    Buffer.from([0xd7, 1, ...Buffer.alloc(8)]),
    Buffer.from([0xd8, 1, ...Buffer.alloc(16)]),
    Buffer.from([0xc7, 2, 78, 9, 9]),
    Buffer.from([0xc8, 0, 1, 78, 9]),
    Buffer.from([0xc9, 0, 0, 0, 1, 78, 9]),
    Buffer.from([0x92, 0x01, 0x81, 0xa1, 0x6b, 0x90]),
    Buffer.from([0xdc, 0, 2, 0xc0, 0xc0]),
    Buffer.from([0xdd, 0, 0, 0, 1, 0xc0]),
    Buffer.from([0xde, 0, 1, 0x01, 0x02]),
    Buffer.from([0xdf, 0, 0, 0, 1, 0x01, 0x80]),
    encode({ head: {}, body: Buffer.from('salt/job/1/ret/m1\n\n\x81\xa2id\xa2m1', 'latin1'), list: [1, 'two', [3, { four: 5.5 }]] }),
  ];

  it('finds the end of every type, with bytes of the next value after it', () => {
    for (const value of everyType) {
      const stream = Buffer.concat([Buffer.from([0x01, 0x02]), value, Buffer.from([0x93, 1, 2])]);
      expect(valueEnd(stream, 2), value.toString('hex')).toBe(2 + value.length);
    }
  });

  it('says how many bytes at least a value cut short needs, never less than one more', () => {
    for (const value of everyType) {
      for (let cut = 0; cut < value.length; cut++) {
        const end = valueEnd(value.subarray(0, cut), 0);
        expect(end, `${value.toString('hex')} cut at ${cut}`).toBeGreaterThan(cut);
        expect(end, `${value.toString('hex')} cut at ${cut}`).toBeLessThanOrEqual(value.length);
      }
    }
  });

  it('reads the declared length of a large value from its header, before its bytes arrive', () => {
    expect(valueEnd(Buffer.from([0xc6, 0x10, 0, 0, 0]), 0)).toBe(5 + 0x1000_0000);
    expect(valueEnd(Buffer.from([0x82, 0xa4]), 0)).toBe(2 + 4 + 3);
  });

  it('agrees with decode on every captured payload', () => {
    for (const m of allMessages()) {
      const payload = lastFrame(m);
      expect(valueEnd(payload, 0), m.source).toBe(payload.length);
    }
  });

  it('rejects the never-used byte 0xc1', () => {
    expect(codeOf(() => valueEnd(Buffer.from([0x91, 0xc1]), 0))).toBe('MSGPACK_TYPE');
  });
});
