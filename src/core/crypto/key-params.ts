/**
 * The public numbers (modulus, exponent, size in bytes) of an RSA KeyObject, computed once per key
 * and kept beside it, so X9.31 and the size checks on the hot path need no JWK export each time.
 */
import type { KeyObject } from 'node:crypto';
import { CryptoError } from '../errors';

export interface RsaPublicParams {
  /** The modulus. */
  n: bigint;
  /** The public exponent. */
  e: bigint;
  /** Modulus length in bytes: the length of every signature and ciphertext. */
  size: number;
}

const params = new WeakMap<KeyObject, RsaPublicParams>();

export function publicParams(key: KeyObject): RsaPublicParams {
  const known = params.get(key);
  if (known) return known;
  if (key.asymmetricKeyType !== 'rsa') {
    throw new CryptoError('BAD_KEY', `key is ${String(key.asymmetricKeyType ?? key.type)}, not RSA`);
  }
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.n !== 'string' || typeof jwk.e !== 'string') {
    throw new CryptoError('BAD_KEY', 'RSA key has no modulus or exponent');
  }
  const nBytes = Buffer.from(jwk.n, 'base64url');
  const found: RsaPublicParams = {
    n: bytesToBigInt(nBytes),
    e: bytesToBigInt(Buffer.from(jwk.e, 'base64url')),
    size: Math.ceil(bitLength(nBytes) / 8),
  };
  params.set(key, found);
  return found;
}

function bitLength(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  if (i === bytes.length) return 0;
  return (bytes.length - i - 1) * 8 + (32 - Math.clz32(bytes[i]));
}

export function bytesToBigInt(bytes: Buffer): bigint {
  return bytes.length === 0 ? 0n : BigInt('0x' + bytes.toString('hex'));
}

/** Big-endian, left-padded with zeros to exactly `size` bytes. */
export function bigIntToBytes(value: bigint, size: number): Buffer {
  const hex = value.toString(16);
  if (hex.length > size * 2) {
    throw new CryptoError('BAD_SIGNATURE', `integer does not fit in ${size} bytes`);
  }
  return Buffer.from(hex.padStart(size * 2, '0'), 'hex');
}
