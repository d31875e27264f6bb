/**
 * msgpack encoder for Salt's raw-string family (Python `msgpack.packb(use_bin_type=False)`).
 *
 * Hand-written rather than msgpackr: msgpackr (2.1.x) always writes str8 (0xd9) for 32..255-byte
 * strings and `bin` for Buffers, and has no option to turn either off; Salt's peers expect str16 for
 * those lengths and raw strings for bytes, and we must reproduce captured bytes exactly.
 *
 * One growable scratch buffer is reused across calls; each call copies out only its result.
 */
import { ProtocolError } from '../errors';

/** Deeper nesting than this is refused: Salt never sends it and it guards against cycles. */
export const MAX_DEPTH = 256;

const INITIAL_SIZE = 8192;
const TWO_32 = 0x1_0000_0000;

class Encoder {
  private buf = Buffer.allocUnsafe(INITIAL_SIZE);
  private pos = 0;
  busy = false;

  run(value: unknown): Buffer {
    this.pos = 0;
    this.write(value, 0);
    const out = Buffer.allocUnsafe(this.pos);
    this.buf.copy(out, 0, 0, this.pos);
    // Do not keep a huge scratch buffer alive after one big message.
    if (this.buf.length > 4 * 1024 * 1024) this.buf = Buffer.allocUnsafe(INITIAL_SIZE);
    return out;
  }

  private ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  private write(value: unknown, depth: number): void {
    switch (typeof value) {
      case 'string':
        this.writeString(value);
        return;
      case 'number':
        this.writeNumber(value);
        return;
      case 'boolean':
        this.ensure(1);
        this.buf[this.pos++] = value ? 0xc3 : 0xc2;
        return;
      case 'undefined':
        this.ensure(1);
        this.buf[this.pos++] = 0xc0;
        return;
      case 'bigint':
        this.writeBigInt(value);
        return;
      case 'object':
        if (value === null) {
          this.ensure(1);
          this.buf[this.pos++] = 0xc0;
          return;
        }
        if (depth >= MAX_DEPTH) {
          throw new ProtocolError('MSGPACK_DEPTH', `msgpack encode: nesting deeper than ${MAX_DEPTH} levels (a cycle?)`);
        }
        if (value instanceof Uint8Array) {
          this.writeRaw(value);
          return;
        }
        if (Array.isArray(value)) {
          this.writeArrayHeader(value.length);
          for (let i = 0; i < value.length; i++) this.write(value[i], depth + 1);
          return;
        }
        if (value instanceof Map) {
          this.writeMapHeader(value.size);
          for (const [k, v] of value) {
            this.write(k, depth + 1);
            this.write(v, depth + 1);
          }
          return;
        }
        {
          const proto = Object.getPrototypeOf(value);
          if (proto !== Object.prototype && proto !== null) {
            const name = (value as { constructor?: { name?: string } }).constructor?.name ?? 'object';
            throw new ProtocolError(
              'MSGPACK_TYPE',
              `msgpack encode: cannot encode a ${name} (only plain objects, Map, arrays, Buffer, strings, numbers, booleans, null)`,
            );
          }
          const obj = value as Record<string, unknown>;
          const keys = Object.keys(obj);
          this.writeMapHeader(keys.length);
          for (let i = 0; i < keys.length; i++) {
            this.writeString(keys[i]);
            this.write(obj[keys[i]], depth + 1);
          }
        }
        return;
      default:
        throw new ProtocolError('MSGPACK_TYPE', `msgpack encode: cannot encode a ${typeof value}`);
    }
  }

  private writeRawHeader(len: number): void {
    // str8 (0xd9) is skipped on purpose: Python's use_bin_type=False never emits it.
    if (len < 32) {
      this.buf[this.pos++] = 0xa0 | len;
    } else if (len < 0x10000) {
      this.buf[this.pos++] = 0xda;
      this.buf[this.pos++] = len >>> 8;
      this.buf[this.pos++] = len & 0xff;
    } else {
      this.buf[this.pos++] = 0xdb;
      this.buf.writeUInt32BE(len, this.pos);
      this.pos += 4;
    }
  }

  private writeString(s: string): void {
    const n = s.length;
    // Short strings: try a pure-ASCII copy, which avoids a native call per key.
    if (n < 32) {
      this.ensure(1 + n * 3);
      const start = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        this.buf[start + i] = c;
      }
      if (i === n) {
        this.buf[this.pos] = 0xa0 | n;
        this.pos = start + n;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.ensure(5 + len);
    this.writeRawHeader(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }

  private writeRaw(bytes: Uint8Array): void {
    const len = bytes.length;
    this.ensure(5 + len);
    this.writeRawHeader(len);
    this.buf.set(bytes, this.pos);
    this.pos += len;
  }

  private writeArrayHeader(len: number): void {
    this.ensure(5);
    if (len < 16) this.buf[this.pos++] = 0x90 | len;
    else if (len < 0x10000) {
      this.buf[this.pos++] = 0xdc;
      this.buf.writeUInt16BE(len, this.pos);
      this.pos += 2;
    } else {
      this.buf[this.pos++] = 0xdd;
      this.buf.writeUInt32BE(len, this.pos);
      this.pos += 4;
    }
  }

  private writeMapHeader(len: number): void {
    this.ensure(5);
    if (len < 16) this.buf[this.pos++] = 0x80 | len;
    else if (len < 0x10000) {
      this.buf[this.pos++] = 0xde;
      this.buf.writeUInt16BE(len, this.pos);
      this.pos += 2;
    } else {
      this.buf[this.pos++] = 0xdf;
      this.buf.writeUInt32BE(len, this.pos);
      this.pos += 4;
    }
  }

  private writeNumber(n: number): void {
    this.ensure(9);
    const b = this.buf;
    if (Number.isInteger(n) && !Object.is(n, -0)) {
      if (n >= 0) {
        if (n < 0x80) {
          b[this.pos++] = n;
          return;
        }
        if (n < 0x100) {
          b[this.pos++] = 0xcc;
          b[this.pos++] = n;
          return;
        }
        if (n < 0x10000) {
          b[this.pos++] = 0xcd;
          b.writeUInt16BE(n, this.pos);
          this.pos += 2;
          return;
        }
        if (n < TWO_32) {
          b[this.pos++] = 0xce;
          b.writeUInt32BE(n, this.pos);
          this.pos += 4;
          return;
        }
        if (n <= Number.MAX_SAFE_INTEGER) {
          b[this.pos++] = 0xcf;
          b.writeBigUInt64BE(BigInt(n), this.pos);
          this.pos += 8;
          return;
        }
      } else {
        if (n >= -32) {
          b[this.pos++] = n & 0xff;
          return;
        }
        if (n >= -0x80) {
          b[this.pos++] = 0xd0;
          b.writeInt8(n, this.pos);
          this.pos += 1;
          return;
        }
        if (n >= -0x8000) {
          b[this.pos++] = 0xd1;
          b.writeInt16BE(n, this.pos);
          this.pos += 2;
          return;
        }
        if (n >= -0x8000_0000) {
          b[this.pos++] = 0xd2;
          b.writeInt32BE(n, this.pos);
          this.pos += 4;
          return;
        }
        if (n >= Number.MIN_SAFE_INTEGER) {
          b[this.pos++] = 0xd3;
          b.writeBigInt64BE(BigInt(n), this.pos);
          this.pos += 8;
          return;
        }
      }
    }
    // Fractions, -0, NaN, Infinity and integers beyond 2^53 (not exact anyway) go as float64,
    // as Python does for floats.
    b[this.pos++] = 0xcb;
    b.writeDoubleBE(n, this.pos);
    this.pos += 8;
  }

  private writeBigInt(n: bigint): void {
    if (n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER)) {
      this.writeNumber(Number(n));
      return;
    }
    this.ensure(9);
    if (n > 0n && n <= 0xffff_ffff_ffff_ffffn) {
      this.buf[this.pos++] = 0xcf;
      this.buf.writeBigUInt64BE(n, this.pos);
    } else if (n < 0n && n >= -0x8000_0000_0000_0000n) {
      this.buf[this.pos++] = 0xd3;
      this.buf.writeBigInt64BE(n, this.pos);
    } else {
      throw new ProtocolError('MSGPACK_TYPE', `msgpack encode: integer ${n} does not fit in 64 bits`);
    }
    this.pos += 8;
  }
}

const shared = new Encoder();

/** Encode a value as Salt packs it (raw strings only, smallest integers, map order kept). */
export function encode(value: unknown): Buffer {
  // A getter or Map iterator could call encode() again mid-write; give such a call its own encoder.
  const enc = shared.busy ? new Encoder() : shared;
  enc.busy = true;
  try {
    return enc.run(value);
  } finally {
    enc.busy = false;
  }
}
