/**
 * Seeded frame generator for the fuzz campaign: mutations of the captured Salt 3007 messages in
 * ../shared/salt-wire/, absurd msgpack lengths, deep nesting, wrong types in every field, and
 * multi-frame messages. The same seed gives the same frames.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '../../src/core/protocol/msgpack';

const WIRE = join(__dirname, '../../../shared/salt-wire');

/** mulberry32: small, fast, and the same sequence for the same seed. */
export function seeded(seed: number): () => number {
  let s = seed | 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The `i`th of four kinds of broken ZMTP a peer may send, with noise from `r`: pure noise; a valid
 * handshake (`valid`: greeting and READY) then noise; a frame claiming 2^63 bytes; a handshake cut short.
 */
export function brokenZmtp(r: () => number, valid: Buffer, i: number): Buffer {
  const noise = Buffer.from(Array.from({ length: 1 + Math.floor(r() * 200) }, () => Math.floor(r() * 256)));
  switch (i % 4) {
    case 0:
      return noise;
    case 1:
      return Buffer.concat([valid, noise]);
    case 2:
      return Buffer.concat([valid, Buffer.from([0x02, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])]);
    default:
      return valid.subarray(0, 1 + Math.floor(r() * 63));
  }
}

/** The captured frames: requests (minion -> master, last frame) and publications. */
export function wireSeeds(): { requests: Buffer[]; publications: Buffer[] } {
  const requests: Buffer[] = [];
  const publications: Buffer[] = [];
  const visit = (o: unknown, file: string): void => {
    if (Array.isArray(o)) return o.forEach((v) => visit(v, file));
    if (!o || typeof o !== 'object') return;
    const rec = o as Record<string, unknown>;
    if (Array.isArray(rec.zmq_frames_hex)) {
      const frames = (rec.zmq_frames_hex as string[]).filter((h) => h !== '').map((h) => Buffer.from(h, 'hex'));
      const last = frames[frames.length - 1];
      if (last && rec.direction === 'minion->master') requests.push(last);
      if (last && file === 'publish.json') publications.push(last);
    }
    for (const v of Object.values(rec)) visit(v, file);
  };
  for (const file of readdirSync(WIRE).filter((f) => f.endsWith('.json'))) {
    visit(JSON.parse(readFileSync(join(WIRE, file), 'utf8')), file);
  }
  return { requests, publications };
}

type Rand = () => number;
const int = (r: Rand, n: number) => Math.floor(r() * n);
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[int(r, xs.length)];

function randomBytes(r: Rand, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = int(r, 256);
  return b;
}

/** A value of the wrong type for any field. */
function wrongValue(r: Rand): unknown {
  switch (int(r, 12)) {
    case 0:
      return null;
    case 1:
      return 2n ** 63n + BigInt(int(r, 1000));
    case 2:
      return -1;
    case 3:
      return 1e300;
    case 4:
      return 'x'.repeat(int(r, 2) === 0 ? 300 : 200_000);
    case 5:
      return randomBytes(r, int(r, 64));
    case 6:
      return [];
    case 7:
      return { __proto__: 'x', constructor: 1, toString: [] };
    case 8:
      return true;
    case 9:
      return pick(r, [
        '__proto__',
        'constructor',
        'toString',
        '../../etc/passwd',
        '.root_key',
        'web\u202e1',
        '\u001b[2J',
        '*a['.repeat(5000),
      ]);
    case 10:
      return nest(int(r, 200));
    default:
      return NaN;
  }
}

function nest(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** The seed decoded, one field (at any depth of the top maps) replaced by a wrong value. */
function wrongField(r: Rand, seed: Buffer): Buffer {
  let value: unknown;
  try {
    value = decode(seed);
  } catch {
    return seed;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return encode(wrongValue(r));
  const top = { ...(value as Record<string, unknown>) };
  const inner =
    top.load && typeof top.load === 'object' && !Buffer.isBuffer(top.load) && int(r, 2) === 0
      ? { ...(top.load as Record<string, unknown>) }
      : undefined;
  const target = inner ?? top;
  const keys = Object.keys(target);
  const key = keys.length > 0 && int(r, 5) > 0 ? pick(r, keys) : pick(r, ['cmd', 'id', 'enc', 'load', 'pub', 'tgt', 'saltenv']);
  target[key] = wrongValue(r);
  if (inner) top.load = inner;
  try {
    return encode(top);
  } catch {
    return seed;
  }
}

/** Byte-level mutations: flips, overwrites, truncation, random tails, splices. */
function mutateBytes(r: Rand, seed: Buffer, other: Buffer): Buffer {
  const b = Buffer.from(seed);
  switch (int(r, 6)) {
    case 0:
      for (let i = 0, n = 1 + int(r, 8); i < n; i++) b[int(r, b.length)] ^= 1 << int(r, 8);
      return b;
    case 1:
      for (let i = 0, n = 1 + int(r, 16); i < n; i++) b[int(r, b.length)] = int(r, 256);
      return b;
    case 2:
      return b.subarray(0, int(r, b.length));
    case 3:
      return Buffer.concat([b, randomBytes(r, int(r, 512))]);
    case 4:
      return Buffer.concat([b.subarray(0, int(r, b.length)), other.subarray(int(r, other.length))]);
    default: {
      // An absurd length header in the middle: str32/bin32/array32/map32 claiming ~4 GB.
      const at = int(r, b.length);
      return Buffer.concat([b.subarray(0, at), Buffer.from([pick(r, [0xdb, 0xc6, 0xdd, 0xdf]), 0xff, 0xff, 0xff, 0xf0]), b.subarray(at)]);
    }
  }
}

/** A single-frame message that is not derived from a seed. */
function synthetic(r: Rand): Buffer {
  switch (int(r, 5)) {
    case 0:
      return randomBytes(r, int(r, 2048));
    case 1:
      return Buffer.concat([Buffer.alloc(int(r, 100_000) + 1, 0x91), Buffer.from([0xc0])]); // [[[[...]]]]
    case 2:
      return Buffer.concat([Buffer.alloc(int(r, 50_000) + 1, 0x81).map((_, i) => (i % 2 === 0 ? 0x81 : 0xa1)), Buffer.from([0xc0])]);
    case 3:
      return encode({
        enc: 'clear',
        load: {
          cmd: '_auth',
          id: wrongValue(r),
          nonce: 'a'.repeat(32),
          enc_algo: 'OAEP-SHA1',
          sig_algo: 'PKCS1v15-SHA1',
          pub: wrongValue(r),
        },
        version: 3,
      });
    default:
      return encode({
        enc: pick(r, ['aes', 'clear', 'pub', wrongValue(r)]),
        load: wrongValue(r),
        version: wrongValue(r),
        id: wrongValue(r),
      });
  }
}

export interface FuzzFrames {
  /** One message: its frames (more than one = a multi-frame message, which REQ peers never send). */
  next(): Buffer[];
}

/** Frames for the master's request port (from request seeds) or a minion's subscription (publications). */
export function frameSource(seed: number, seeds: Buffer[]): FuzzFrames {
  const r = seeded(seed);
  return {
    next(): Buffer[] {
      const kind = int(r, 10);
      const s = pick(r, seeds);
      if (kind === 0)
        return Array.from({ length: 2 + int(r, 3) }, () =>
          int(r, 2) === 0 ? mutateBytes(r, s, pick(r, seeds)) : randomBytes(r, int(r, 64)),
        );
      if (kind <= 3) return [wrongField(r, s)];
      if (kind <= 7) return [mutateBytes(r, s, pick(r, seeds))];
      return [synthetic(r)];
    },
  };
}
