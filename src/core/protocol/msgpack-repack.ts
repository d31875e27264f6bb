/**
 * The bytes a Salt master checks a minion's message signature against (`minion_sign_messages`,
 * salt/master.py `_return`). It decodes the load from the wire (raw strings, which
 * `salt.payload.loads` turns into `str` when they are valid UTF-8 and leaves as `bytes` when not),
 * pops some fields, and packs the rest with `salt.serializers.msgpack.serialize`: `msgpack.packb`
 * with its defaults (`use_bin_type=True`, so `str` in the str family with str8, `bytes` as bin,
 * every float as float64, every integer in its smallest form). A Salt minion signs that packing of
 * its load too.
 *
 * Written here straight from the wire's bytes, not through JavaScript values: a round trip would
 * lose what Python keeps, that `1.0` is a float.
 */
import { isUtf8 } from 'node:buffer';
import { ProtocolError } from '../errors';
import { MAX_DEPTH } from './msgpack-encode';
import { valueEnd } from './msgpack-decode';

const TWO_32 = 0x1_0000_0000;

/**
 * The top-level map of `plain` (a msgpack load in Salt's raw-string dialect) without the entries
 * whose keys are in `omit`, packed as Salt's `msgpack.packb(use_bin_type=True)` packs what
 * `salt.payload.loads` decoded from it. Throws `ProtocolError` when `plain` is not one map.
 */
export function repackForSignature(plain: Uint8Array, omit: ReadonlySet<string>): Buffer {
  const buf = Buffer.isBuffer(plain) ? plain : Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength);
  return new Repacker(buf).topMap(omit);
}

class Repacker {
  private pos = 0;
  // Every value comes out at most twice its size (a 1-byte fixstr header may become bin8's 2, a
  // float32's 5 bytes a float64's 9); headers of arrays and maps never grow.
  private readonly out: Buffer;
  private at = 0;

  constructor(private readonly buf: Buffer) {
    this.out = Buffer.allocUnsafe(2 * buf.length + 16);
  }

  topMap(omit: ReadonlySet<string>): Buffer {
    const count = this.mapCount();
    if (count === undefined) throw new ProtocolError('BAD_LOAD', 'signed message: the load is not a map');
    const kept: number[] = [];
    for (let i = 0; i < count; i++) {
      const keyAt = this.pos;
      const valueAt = this.end(keyAt);
      const next = this.end(valueAt);
      if (!omit.has(this.keyText(keyAt, valueAt))) kept.push(keyAt, next);
      this.pos = next;
    }
    if (this.pos !== this.buf.length) throw new ProtocolError('MSGPACK_TRAILING', 'signed message: bytes after the load');
    this.header(kept.length / 2, 0x80, 0xde);
    for (let i = 0; i < kept.length; i += 2) {
      this.pos = kept[i];
      this.value(0);
      this.value(0);
    }
    return Buffer.from(this.out.subarray(0, this.at));
  }

  /** The end of the value at `start`, which must lie within the load. */
  private end(start: number): number {
    const end = valueEnd(this.buf, start);
    if (end > this.buf.length) throw new ProtocolError('MSGPACK_TRUNCATED', `signed message: a value at byte ${start} is cut short`);
    return end;
  }

  /** A top-level key as text ('' for a key that is not a string: never omitted). */
  private keyText(start: number, end: number): string {
    const t = this.buf[start];
    let from: number;
    if (t >= 0xa0 && t <= 0xbf) from = start + 1;
    else if (t === 0xd9 || t === 0xc4) from = start + 2;
    else if (t === 0xda || t === 0xc5) from = start + 3;
    else if (t === 0xdb || t === 0xc6) from = start + 5;
    else return '';
    return this.buf.toString('latin1', from, end);
  }

  /** The entry count when the value at pos is a map (pos moved past its header), else undefined. */
  private mapCount(): number | undefined {
    const t = this.buf[this.pos];
    if (t >= 0x80 && t <= 0x8f) {
      this.pos += 1;
      return t & 0x0f;
    }
    if (t === 0xde || t === 0xdf) return this.length(t === 0xde ? 2 : 4);
    return undefined;
  }

  /** Reads a big-endian length of `n` bytes after the type byte at pos; pos moves past both. */
  private length(n: number): number {
    if (this.pos + 1 + n > this.buf.length)
      throw new ProtocolError('MSGPACK_TRUNCATED', `signed message: a header at byte ${this.pos} is cut short`);
    let len = 0;
    for (let i = 1; i <= n; i++) len = len * 256 + this.buf[this.pos + i];
    this.pos += 1 + n;
    return len;
  }

  private header(count: number, fix: number, wide16: number): void {
    const o = this.out;
    if (count < 16) o[this.at++] = fix | count;
    else if (count < 0x10000) {
      o[this.at++] = wide16;
      o.writeUInt16BE(count, this.at);
      this.at += 2;
    } else {
      o[this.at++] = wide16 + 1;
      o.writeUInt32BE(count, this.at);
      this.at += 4;
    }
  }

  private value(depth: number): void {
    if (depth > MAX_DEPTH) throw new ProtocolError('MSGPACK_DEPTH', `signed message: nesting deeper than ${MAX_DEPTH} levels`);
    const b = this.buf;
    const t = b[this.pos];
    if (t < 0x80 || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3 || t === 0xcb) {
      this.copy(this.end(this.pos) - this.pos); // fixints, nil, booleans, float64: as they are
    } else if (t <= 0x8f || t === 0xde || t === 0xdf) {
      const count = this.mapCount()!;
      this.header(count, 0x80, 0xde);
      for (let i = 0; i < 2 * count; i++) this.value(depth + 1);
    } else if (t <= 0x9f || t === 0xdc || t === 0xdd) {
      let count: number;
      if (t <= 0x9f) {
        count = t & 0x0f;
        this.pos += 1;
      } else count = this.length(t === 0xdc ? 2 : 4);
      this.header(count, 0x90, 0xdc);
      for (let i = 0; i < count; i++) this.value(depth + 1);
    } else if (t <= 0xbf) {
      this.pos += 1;
      this.text(t & 0x1f);
    } else if (t === 0xd9 || t === 0xc4) this.text(this.length(1));
    else if (t === 0xda || t === 0xc5) this.text(this.length(2));
    else if (t === 0xdb || t === 0xc6) this.text(this.length(4));
    else if (t === 0xca) {
      // Python reads a float32 into a float and packs it as float64.
      if (this.pos + 5 > b.length) throw new ProtocolError('MSGPACK_TRUNCATED', `signed message: a float at byte ${this.pos} is cut short`);
      const f = b.readFloatBE(this.pos + 1);
      this.pos += 5;
      this.out[this.at++] = 0xcb;
      this.out.writeDoubleBE(f, this.at);
      this.at += 8;
    } else if (t >= 0xcc && t <= 0xd3) this.integer(t);
    else this.copy(this.end(this.pos) - this.pos); // ext types: Salt's datetimes and constants, kept as sent
  }

  /** Raw bytes (any of the str and bin types): str when valid UTF-8, as Salt decodes them, else bin. */
  private text(len: number): void {
    if (this.pos + len > this.buf.length)
      throw new ProtocolError('MSGPACK_TRUNCATED', `signed message: a string at byte ${this.pos} is cut short`);
    const bytes = this.buf.subarray(this.pos, this.pos + len);
    const o = this.out;
    if (isUtf8(bytes)) {
      if (len < 32) o[this.at++] = 0xa0 | len;
      else this.sized(len, 0xd9);
    } else this.sized(len, 0xc4);
    this.copy(len);
  }

  /** A str8/16/32 (first = 0xd9) or bin8/16/32 (first = 0xc4) header for `len` bytes. */
  private sized(len: number, first: number): void {
    const o = this.out;
    if (len < 0x100) {
      o[this.at++] = first;
      o[this.at++] = len;
    } else if (len < 0x10000) {
      o[this.at++] = first + 1;
      o.writeUInt16BE(len, this.at);
      this.at += 2;
    } else {
      o[this.at++] = first + 2;
      o.writeUInt32BE(len, this.at);
      this.at += 4;
    }
  }

  /** An integer of any width, written in the smallest form Python's packer picks for its value. */
  private integer(t: number): void {
    const n = 1 << (t <= 0xcf ? t - 0xcc : t - 0xd0);
    if (this.pos + 1 + n > this.buf.length)
      throw new ProtocolError('MSGPACK_TRUNCATED', `signed message: an integer at byte ${this.pos} is cut short`);
    const b = this.buf;
    const at = this.pos + 1;
    let v: bigint;
    if (t <= 0xcf)
      v = n === 1 ? BigInt(b[at]) : n === 2 ? BigInt(b.readUInt16BE(at)) : n === 4 ? BigInt(b.readUInt32BE(at)) : b.readBigUInt64BE(at);
    else
      v =
        n === 1 ? BigInt(b.readInt8(at)) : n === 2 ? BigInt(b.readInt16BE(at)) : n === 4 ? BigInt(b.readInt32BE(at)) : b.readBigInt64BE(at);
    this.pos += 1 + n;
    const o = this.out;
    if (v >= 0n) {
      if (v < 0x80n) o[this.at++] = Number(v);
      else if (v < 0x100n) this.fixed(0xcc, 1, v);
      else if (v < 0x10000n) this.fixed(0xcd, 2, v);
      else if (v < BigInt(TWO_32)) this.fixed(0xce, 4, v);
      else this.fixed(0xcf, 8, v);
    } else if (v >= -32n) o[this.at++] = Number(v) & 0xff;
    else if (v >= -0x80n) this.fixed(0xd0, 1, v);
    else if (v >= -0x8000n) this.fixed(0xd1, 2, v);
    else if (v >= -0x8000_0000n) this.fixed(0xd2, 4, v);
    else this.fixed(0xd3, 8, v);
  }

  private fixed(type: number, n: number, v: bigint): void {
    const o = this.out;
    o[this.at++] = type;
    if (n === 8) {
      if (type === 0xcf) o.writeBigUInt64BE(v, this.at);
      else o.writeBigInt64BE(v, this.at);
    } else if (type <= 0xcf) o.writeUIntBE(Number(v), this.at, n);
    else o.writeIntBE(Number(v), this.at, n);
    this.at += n;
  }

  private copy(n: number): void {
    this.buf.copy(this.out, this.at, this.pos, this.pos + n);
    this.pos += n;
    this.at += n;
  }
}
