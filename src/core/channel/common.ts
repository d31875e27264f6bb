/**
 * Pieces every part of the channel shares: Salt's `pickle::` plaintext prefix, key-string ->
 * Crypticle memoisation, nonces and constant-time comparison.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { CryptoError, ProtocolError } from '../errors';
import { Crypticle } from '../crypto/crypticle';
import type { SigningAlgorithm } from '../crypto/rsa-algorithms';
import { decode, encode } from '../protocol/msgpack';

/** Every Crypticle plaintext starts with this (a leftover of Salt's pickle serialiser). */
export const PICKLE_PREFIX = Buffer.from('pickle::', 'latin1');

export const ENC_ALGO = 'OAEP-SHA1';
export const SIG_ALGO = 'PKCS1v15-SHA1' satisfies SigningAlgorithm;
export { REQUEST_VERSION } from './clear';

/** A symmetric key given as Salt's 76-character key string, or as an already built Crypticle. */
export type SymmetricKey = string | Crypticle;

// Building a Crypticle derives two KeyObjects; the master sees the same few keys thousands of times.
// Bounded so a stream of distinct keys cannot grow it without limit.
const crypticles = new Map<string, Crypticle>();
const MAX_CACHED = 1024;

export function crypticleFor(key: SymmetricKey): Crypticle {
  if (key instanceof Crypticle) return key;
  let c = crypticles.get(key);
  if (c === undefined) {
    c = new Crypticle(key);
    if (crypticles.size >= MAX_CACHED) crypticles.delete(crypticles.keys().next().value as string);
    crypticles.set(key, c);
  }
  return c;
}

/** uuid4().hex, as Salt makes nonces: 32 lowercase hex characters. */
export function newNonce(): string {
  return randomUUID().replace(/-/g, '');
}

const NONCE = /^[0-9a-f]{32}$/;

export function isNonce(s: unknown): s is string {
  return typeof s === 'string' && NONCE.test(s);
}

/** msgpack of null: the body of every `_return` and `_minion_event` reply. */
const MSGPACK_NIL = Buffer.from([0xc0]);

/** Encrypt `pickle::` + [nonce] + msgpack(value), the plaintext written once into one buffer. */
export function sealValue(key: SymmetricKey, value: unknown, nonce?: string): Buffer {
  const body = value === null ? MSGPACK_NIL : encode(value);
  const at = PICKLE_PREFIX.length + (nonce === undefined ? 0 : nonce.length);
  const plain = Buffer.allocUnsafe(at + body.length);
  PICKLE_PREFIX.copy(plain, 0);
  if (nonce !== undefined) plain.write(nonce, PICKLE_PREFIX.length, 'latin1');
  body.copy(plain, at);
  return crypticleFor(key).encrypt(plain);
}

/** Decrypt and strip `pickle::`; returns the bytes after it. HMAC failures stay `CryptoError BAD_HMAC`. */
export function openSealed(key: SymmetricKey, message: Buffer, what: string): Buffer {
  const plain = crypticleFor(key).decrypt(message);
  if (plain.length < PICKLE_PREFIX.length || !plain.subarray(0, PICKLE_PREFIX.length).equals(PICKLE_PREFIX)) {
    throw new ProtocolError('BAD_LOAD', `${what}: decrypted payload does not start with "pickle::"`);
  }
  return plain.subarray(PICKLE_PREFIX.length);
}

/** msgpack-decode a frame, reporting garbage as a typed error that names the message. */
export function decodeFrame(bytes: Uint8Array, what: string): unknown {
  if (!(bytes instanceof Uint8Array)) {
    throw new ProtocolError('BAD_LOAD', `${what}: expected the frame bytes (Buffer)`);
  }
  return decode(bytes);
}

export function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export function checkNonce(got: string, expected: string, what: string): void {
  if (got !== expected) {
    throw new CryptoError('BAD_NONCE', `${what}: nonce ${JSON.stringify(got)} does not match the request's ${JSON.stringify(expected)}`, {
      hint: 'a replayed or misrouted reply; retry the request',
    });
  }
}

/** Key strings travel as bytes inside OAEP; they are base64 text. */
export function keyStringFrom(bytes: Buffer, what: string): string {
  const s = bytes.toString('latin1');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s)) {
    throw new CryptoError('BAD_KEY', `${what}: decrypted key is not a base64 key string`);
  }
  return s;
}
