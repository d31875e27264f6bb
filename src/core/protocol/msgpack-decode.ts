/**
 * msgpack decoder for Salt's raw-string family.
 *
 * Hand-written rather than msgpackr: with use_bin_type=False, Salt sends ciphertexts, signatures and
 * other binary values as raw *strings*; msgpackr always decodes strings as UTF-8 text (invalid
 * sequences are mangled) and has no option to hand them back as bytes. Here a raw value that is
 * valid UTF-8 becomes a string and anything else a Buffer, so encode(decode(b)) gives b back.
 * It is also strict: every length is checked against the input before it is used.
 */
import { isUtf8 } from 'node:buffer';
import { ProtocolError } from '../errors';
import { MAX_DEPTH } from './msgpack-encode';

const TWO_32 = 0x1_0000_0000;

/** Map keys seen lately, by a hash of their bytes (see Decoder.readKey); shared by all decodes. */
const KEY_SLOTS = 4096;
const KEYS: Array<string | undefined> = new Array<string | undefined>(KEY_SLOTS);

function truncated(what: string, at: number): ProtocolError {
  return new ProtocolError('MSGPACK_TRUNCATED', `msgpack decode: data ends inside ${what} at byte ${at}`);
}

class Decoder {
  pos = 0;
  constructor(private readonly buf: Buffer) {}

  private need(n: number, what: string): void {
    if (this.pos + n > this.buf.length) throw truncated(what, this.pos);
  }

  /** A declared element count/length that cannot possibly fit in what is left is an attack or garbage. */
  private checkCount(count: number, minBytesEach: number, what: string): void {
    if (count * minBytesEach > this.buf.length - this.pos) {
      throw new ProtocolError(
        'MSGPACK_LENGTH',
        `msgpack decode: ${what} declares ${count} elements/bytes at byte ${this.pos} but only ${this.buf.length - this.pos} bytes remain`,
      );
    }
  }

  read(depth: number): unknown {
    const b = this.buf;
    if (this.pos >= b.length) throw truncated('a value', this.pos);
    const t = b[this.pos++];
    if (t < 0x80) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0xa0 && t <= 0xbf) return this.readRaw(t & 0x1f);
    if (t >= 0x80 && t <= 0x8f) return this.readMap(t & 0x0f, depth);
    if (t >= 0x90 && t <= 0x9f) return this.readArray(t & 0x0f, depth);
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4: // bin8/16/32: Salt never sends bin, but other packers do; bytes stay bytes.
        this.need(1, 'a bin8 header');
        return Buffer.from(this.readBytes(b[this.pos++]));
      case 0xc5:
        this.need(2, 'a bin16 header');
        this.pos += 2;
        return Buffer.from(this.readBytes(b.readUInt16BE(this.pos - 2)));
      case 0xc6:
        this.need(4, 'a bin32 header');
        this.pos += 4;
        return Buffer.from(this.readBytes(b.readUInt32BE(this.pos - 4)));
      case 0xca:
        this.need(4, 'a float32');
        this.pos += 4;
        return b.readFloatBE(this.pos - 4);
      case 0xcb:
        this.need(8, 'a float64');
        this.pos += 8;
        return b.readDoubleBE(this.pos - 8);
      case 0xcc:
        this.need(1, 'a uint8');
        return b[this.pos++];
      case 0xcd:
        this.need(2, 'a uint16');
        this.pos += 2;
        return b.readUInt16BE(this.pos - 2);
      case 0xce:
        this.need(4, 'a uint32');
        this.pos += 4;
        return b.readUInt32BE(this.pos - 4);
      case 0xcf: {
        this.need(8, 'a uint64');
        const hi = b.readUInt32BE(this.pos);
        const lo = b.readUInt32BE(this.pos + 4);
        this.pos += 8;
        // Beyond 2^53 a number would lose digits: hand back a bigint instead.
        if (hi < 0x20_0000) return hi * TWO_32 + lo;
        return (BigInt(hi) << 32n) | BigInt(lo);
      }
      case 0xd0:
        this.need(1, 'an int8');
        return b.readInt8(this.pos++);
      case 0xd1:
        this.need(2, 'an int16');
        this.pos += 2;
        return b.readInt16BE(this.pos - 2);
      case 0xd2:
        this.need(4, 'an int32');
        this.pos += 4;
        return b.readInt32BE(this.pos - 4);
      case 0xd3: {
        this.need(8, 'an int64');
        const v = b.readBigInt64BE(this.pos);
        this.pos += 8;
        return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
      }
      case 0xd9:
        this.need(1, 'a str8 header');
        return this.readRaw(b[this.pos++]);
      case 0xda:
        this.need(2, 'a str16 header');
        this.pos += 2;
        return this.readRaw(b.readUInt16BE(this.pos - 2));
      case 0xdb:
        this.need(4, 'a str32 header');
        this.pos += 4;
        return this.readRaw(b.readUInt32BE(this.pos - 4));
      case 0xdc:
        this.need(2, 'an array16 header');
        this.pos += 2;
        return this.readArray(b.readUInt16BE(this.pos - 2), depth);
      case 0xdd:
        this.need(4, 'an array32 header');
        this.pos += 4;
        return this.readArray(b.readUInt32BE(this.pos - 4), depth);
      case 0xde:
        this.need(2, 'a map16 header');
        this.pos += 2;
        return this.readMap(b.readUInt16BE(this.pos - 2), depth);
      case 0xdf:
        this.need(4, 'a map32 header');
        this.pos += 4;
        return this.readMap(b.readUInt32BE(this.pos - 4), depth);
      case 0xc7:
        this.need(1, 'an ext8 header');
        return this.readExt(b[this.pos++], depth);
      case 0xc8:
        this.need(2, 'an ext16 header');
        this.pos += 2;
        return this.readExt(b.readUInt16BE(this.pos - 2), depth);
      case 0xc9:
        this.need(4, 'an ext32 header');
        this.pos += 4;
        return this.readExt(b.readUInt32BE(this.pos - 4), depth);
      case 0xd4:
        return this.readExt(1, depth);
      case 0xd5:
        return this.readExt(2, depth);
      case 0xd6:
        return this.readExt(4, depth);
      case 0xd7:
        return this.readExt(8, depth);
      case 0xd8:
        return this.readExt(16, depth);
      default:
        // 0xc1: never used.
        throw new ProtocolError(
          'MSGPACK_TYPE',
          `msgpack decode: unsupported type byte 0x${t.toString(16).padStart(2, '0')} at byte ${this.pos - 1}`,
        );
    }
  }

  /**
   * An extension value of `len` bytes, as Salt's `salt.payload.loads` reads them: type 78 is a
   * datetime (`%Y%m%dT%H:%M:%S.%f`, given back as Python's `str()` of it, `2026-12-03
   * 15:10:13.123456`: JavaScript has no naive datetime), type 79 a Salt constant (`(name, value)`
   * packed inside: its value), any other type its bytes. A Salt minion's `_master_tops` request
   * carries its whole options, datetimes included.
   */
  private readExt(len: number, depth: number): unknown {
    this.need(1, 'an ext type');
    const type = this.buf.readInt8(this.pos++);
    const data = this.readBytes(len);
    if (type === 78) {
      const m = /^(\d{4})(\d{2})(\d{2})T(\d{2}:\d{2}:\d{2})\.(\d{6})$/.exec(data.toString('latin1'));
      if (!m)
        throw new ProtocolError(
          'MSGPACK_TYPE',
          `msgpack decode: a datetime (ext 78) that is not %Y%m%dT%H:%M:%S.%f at byte ${this.pos - len}`,
        );
      // Python's str(datetime) leaves out zero microseconds.
      return `${m[1]}-${m[2]}-${m[3]} ${m[4]}${m[5] === '000000' ? '' : `.${m[5]}`}`;
    }
    if (type === 79) {
      const inner = new Decoder(Buffer.from(data));
      const pair = inner.read(depth + 1);
      if (inner.pos !== data.length || !Array.isArray(pair) || pair.length !== 2) {
        throw new ProtocolError(
          'MSGPACK_TYPE',
          `msgpack decode: a Salt constant (ext 79) that is not a (name, value) pair at byte ${this.pos - len}`,
        );
      }
      return pair[1];
    }
    return Buffer.from(data);
  }

  private readBytes(len: number): Buffer {
    if (this.pos + len > this.buf.length) {
      throw new ProtocolError(
        'MSGPACK_LENGTH',
        `msgpack decode: a value at byte ${this.pos} declares ${len} bytes but only ${this.buf.length - this.pos} remain`,
      );
    }
    const start = this.pos;
    this.pos += len;
    return this.buf.subarray(start, this.pos);
  }

  private readRaw(len: number): string | Buffer {
    const start = this.pos;
    const end = start + len;
    if (end > this.buf.length) return this.readBytes(len); // throws MSGPACK_LENGTH
    const b = this.buf;
    // Most raw values (keys, ids, function names) are short ASCII: no native call for those.
    if (len < 24) {
      let s = '';
      let i = start;
      for (; i < end; i++) {
        const c = b[i];
        if (c >= 0x80) break;
        s += String.fromCharCode(c);
      }
      if (i === end) {
        this.pos = end;
        return s;
      }
    }
    const bytes = this.readBytes(len);
    if (isUtf8(bytes)) return b.toString('utf8', start, end);
    // Copy so the value does not pin (or alias) the caller's whole message buffer.
    return Buffer.from(bytes);
  }

  /**
   * A map key: a short ASCII one comes from KEYS, so that the same key is the same string each
   * time (V8 then finds it at once as a property name, instead of hashing a new string per map:
   * that was a third of decoding a minion's grains). Anything else is read as any value.
   */
  private readKey(depth: number): unknown {
    const b = this.buf;
    const t = b[this.pos];
    if (t === undefined || t < 0xa0 || t > 0xbf) return this.read(depth);
    const len = t & 0x1f;
    const start = this.pos + 1;
    const end = start + len;
    if (end > b.length) return this.read(depth); // the generic path reports it
    let hash = len;
    for (let i = start; i < end; i++) {
      const c = b[i];
      if (c >= 0x80) return this.read(depth);
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    const slot = hash & (KEY_SLOTS - 1);
    const known = KEYS[slot];
    this.pos = end;
    if (known !== undefined && known.length === len) {
      let i = 0;
      while (i < len && known.charCodeAt(i) === b[start + i]) i++;
      if (i === len) return known;
    }
    const key = b.toString('latin1', start, end);
    KEYS[slot] = key;
    return key;
  }

  private readArray(count: number, depth: number): unknown[] {
    if (depth >= MAX_DEPTH) throw depthError(this.pos);
    this.checkCount(count, 1, 'an array');
    const out = new Array<unknown>(count);
    for (let i = 0; i < count; i++) out[i] = this.read(depth + 1);
    return out;
  }

  private readMap(count: number, depth: number): Record<string, unknown> | Map<unknown, unknown> {
    if (depth >= MAX_DEPTH) throw depthError(this.pos);
    this.checkCount(count, 2, 'a map');
    const obj: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const keyAt = this.pos;
      const key = this.readKey(depth + 1);
      if (typeof key !== 'string') {
        // A non-string key (int, bytes, ...) cannot be an object key without changing its type:
        // switch to a Map for this one map, keeping what was read so far in order.
        return this.continueAsMap(obj, key, keyAt, i, count, depth);
      }
      const value = this.read(depth + 1);
      if (key === '__proto__') {
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      } else {
        obj[key] = value;
      }
    }
    return obj;
  }

  private continueAsMap(
    soFar: Record<string, unknown>,
    firstKey: unknown,
    keyAt: number,
    index: number,
    count: number,
    depth: number,
  ): Map<unknown, unknown> {
    if (firstKey !== null && typeof firstKey === 'object' && !(firstKey instanceof Uint8Array)) {
      throw new ProtocolError('MSGPACK_TYPE', `msgpack decode: a map key at byte ${keyAt} is an array or map`);
    }
    const map = new Map<unknown, unknown>(Object.entries(soFar));
    map.set(firstKey, this.read(depth + 1));
    for (let i = index + 1; i < count; i++) {
      const at = this.pos;
      const key = this.read(depth + 1);
      if (key !== null && typeof key === 'object' && !(key instanceof Uint8Array)) {
        throw new ProtocolError('MSGPACK_TYPE', `msgpack decode: a map key at byte ${at} is an array or map`);
      }
      map.set(key, this.read(depth + 1));
    }
    return map;
  }
}

function depthError(at: number): ProtocolError {
  return new ProtocolError('MSGPACK_DEPTH', `msgpack decode: nesting deeper than ${MAX_DEPTH} levels at byte ${at}`);
}

/** Decode exactly one msgpack value that fills the whole input. */
export function decode(data: Uint8Array): unknown {
  if (!(data instanceof Uint8Array)) {
    throw new ProtocolError('MSGPACK_TYPE', 'msgpack decode: input must be a Buffer or Uint8Array');
  }
  const buf = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const dec = new Decoder(buf);
  const value = dec.read(0);
  if (dec.pos !== buf.length) {
    throw new ProtocolError(
      'MSGPACK_TRAILING',
      `msgpack decode: ${buf.length - dec.pos} unexpected bytes after the value (at byte ${dec.pos})`,
    );
  }
  return value;
}

/** A raw value as bytes, whichever way it decoded (valid UTF-8 came back as a string). */
export function toBytes(v: string | Uint8Array): Buffer {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (v instanceof Uint8Array) return Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new ProtocolError('BAD_LOAD', `expected a raw string or bytes, got ${v === null ? 'null' : typeof v}`);
}

/** How many bytes of length, count or number follow a msgpack type byte 0xc4-0xdf (0 for others). */
// prettier-ignore
const HEADER_BYTES: Record<number, number> = {
  0xc4: 1, 0xc5: 2, 0xc6: 4, // bin
  0xc7: 1, 0xc8: 2, 0xc9: 4, // ext
  0xca: 4, 0xcb: 8, // float
  0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8, 0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, // int
  0xd9: 1, 0xda: 2, 0xdb: 4, // str
  0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4, // array, map
};

/**
 * Where the msgpack value starting at `start` ends (the index after its last byte): how a stream
 * of msgpack frames (Salt's IPC and TCP framing) is cut into values without decoding them. When
 * `buf` ends first, the result is past `buf.length`: the least the value can need, as far as its
 * headers tell (a large bin's declared length, before its bytes arrive). Throws `ProtocolError
 * MSGPACK_TYPE` on 0xc1, which no encoder writes.
 */
export function valueEnd(buf: Uint8Array, start: number): number {
  let pos = start;
  let pending = 1;
  while (pending > 0) {
    if (pos >= buf.length) return pos + pending;
    const t = buf[pos++];
    pending--;
    if (t < 0x80 || t >= 0xe0 || t === 0xc0 || t === 0xc2 || t === 0xc3) continue;
    if (t <= 0x8f) {
      pending += 2 * (t & 0x0f);
      continue;
    }
    if (t <= 0x9f) {
      pending += t & 0x0f;
      continue;
    }
    if (t <= 0xbf) {
      pos += t & 0x1f;
      continue;
    }
    if (t === 0xc1) throw new ProtocolError('MSGPACK_TYPE', `msgpack decode: byte ${pos - 1} is 0xc1, which is never used`);
    if (t >= 0xd4 && t <= 0xd8) {
      pos += 1 + (1 << (t - 0xd4)); // fixext: the type byte and 1, 2, 4, 8 or 16 bytes
      continue;
    }
    const n = HEADER_BYTES[t];
    if (pos + n > buf.length) return pos + n + pending;
    // Lengths (bin, str, ext) and counts (array, map); the numbers' bytes are their payload.
    let len = 0;
    if (t === 0xca || t === 0xcb || (t >= 0xcc && t <= 0xd3)) {
      pos += n;
      continue;
    }
    for (let i = 0; i < n; i++) len = len * 256 + buf[pos + i];
    pos += n;
    if (t === 0xdc || t === 0xdd) pending += len;
    else if (t === 0xde || t === 0xdf) pending += 2 * len;
    else if (t >= 0xc7 && t <= 0xc9)
      pos += 1 + len; // ext: the type byte, then the data
    else pos += len; // bin, str
  }
  return pos;
}
