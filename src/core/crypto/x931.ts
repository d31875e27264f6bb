/**
 * X9.31 "signatures" as OpenSSL makes them with RSA_private_encrypt(RSA_X931_PADDING), which Salt
 * uses for the minion's `tok` and the auth reply's `sig`. node:crypto has no X9.31 padding, so the
 * padding is done here and the raw RSA operation (RSA_NO_PADDING, with CRT on the private side) is
 * left to OpenSSL.
 *
 * Block (modulus size k): `6B BB..BB BA || msg || CC`, or `6A || msg || CC` when msg is k-2 bytes.
 * Signing: s = m^d mod n, output min(s, n - s) big-endian in k bytes.
 * Opening: r = s^e mod n; if r mod 16 != 12 then r = n - r; then strip the padding.
 */
import { constants, KeyObject, privateEncrypt, publicDecrypt } from 'node:crypto';
import { CryptoError } from '../errors';
import { bigIntToBytes, bytesToBigInt, publicParams } from './key-params';

export function x931Sign(priv: KeyObject, message: Buffer): Buffer {
  const { n, size } = publicParams(priv);
  const fill = size - message.length - 2;
  if (fill < 0) {
    throw new CryptoError('DATA_TOO_LONG', `X9.31 can sign at most ${size - 2} bytes with this key, got ${message.length}`);
  }
  const block = Buffer.alloc(size, 0xbb);
  if (fill === 0) {
    block[0] = 0x6a;
  } else {
    block[0] = 0x6b;
    block[fill] = 0xba;
  }
  message.copy(block, fill + 1);
  block[size - 1] = 0xcc;
  if (bytesToBigInt(block) >= n) {
    // Only possible with a modulus whose top byte is below 0x6B (odd key sizes); OpenSSL refuses too.
    throw new CryptoError('BAD_KEY', "X9.31 block is larger than this key's modulus");
  }
  let s: Buffer;
  try {
    s = privateEncrypt({ key: priv, padding: constants.RSA_NO_PADDING }, block);
  } catch (cause) {
    throw new CryptoError('BAD_KEY', 'raw RSA private operation failed', { cause });
  }
  const sInt = bytesToBigInt(s);
  const other = n - sInt;
  return other < sInt ? bigIntToBytes(other, size) : s;
}

export function x931Open(pub: KeyObject, signature: Buffer): Buffer {
  const { n, size } = publicParams(pub);
  if (signature.length !== size) {
    throw new CryptoError('BAD_SIGNATURE', `X9.31 signature must be ${size} bytes for this key, got ${signature.length}`);
  }
  if (bytesToBigInt(signature) >= n) {
    throw new CryptoError('BAD_SIGNATURE', 'X9.31 signature is not smaller than the modulus');
  }
  let r: Buffer;
  try {
    r = publicDecrypt({ key: pub, padding: constants.RSA_NO_PADDING }, signature);
  } catch (cause) {
    throw new CryptoError('BAD_SIGNATURE', 'raw RSA public operation failed', { cause });
  }
  if ((r[size - 1] & 0x0f) !== 12) r = bigIntToBytes(n - bytesToBigInt(r), size);
  return stripPadding(r);
}

function stripPadding(block: Buffer): Buffer {
  const size = block.length;
  if (block[size - 1] !== 0xcc) {
    throw new CryptoError('BAD_PADDING', 'X9.31 block does not end with 0xCC (wrong key or not a signature)');
  }
  if (block[0] === 0x6a) return Buffer.from(block.subarray(1, size - 1));
  if (block[0] !== 0x6b) {
    throw new CryptoError('BAD_PADDING', 'X9.31 block does not start with 0x6A or 0x6B');
  }
  let i = 1;
  while (i < size - 1 && block[i] === 0xbb) i++;
  if (i >= size - 1 || block[i] !== 0xba) {
    throw new CryptoError('BAD_PADDING', 'X9.31 padding is not BB..BB BA');
  }
  return Buffer.from(block.subarray(i + 1, size - 1));
}
