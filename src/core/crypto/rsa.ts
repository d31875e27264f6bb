/**
 * RSA as Salt uses it, on node:crypto only.
 *
 * - Key files: private PKCS#1 PEM (`BEGIN RSA PRIVATE KEY`), public SubjectPublicKeyInfo PEM
 *   (`BEGIN PUBLIC KEY`); loading also accepts PKCS#8 private and PKCS#1 public keys.
 * - OAEP with SHA-1 and MGF1-SHA-1, empty label (tokens, AES keys, session keys).
 * - PKCS#1 v1.5 signatures with SHA-1 (auth replies, publications, send_private).
 * - X9.31 "signatures" (OpenSSL's RSA_private_encrypt with RSA_X931_PADDING), which node:crypto
 *   does not offer: built here on the raw RSA operation (see x931.ts).
 */
import {
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  KeyObject,
  privateDecrypt,
  publicEncrypt,
  sign,
  verify,
  webcrypto,
} from 'node:crypto';
import { CryptoError } from '../errors';
import type { RsaHash } from './rsa-algorithms';
import { x931Open as x931OpenRaw, x931Sign as x931SignRaw } from './x931';
import { publicParams } from './key-params';
import { asBytes } from './bytes';
import { derToPem, pemToDer, pkcs1FromSpki, spkiFromPkcs1 } from './spki';

export { fingerprint } from './fingerprint';

/** A key given either as a loaded KeyObject or as PEM text (parsed once, then cached). */
export type RsaKeyInput = KeyObject | string | Buffer;

export interface KeyPairPem {
  privatePem: string;
  publicPem: string;
}

/** Smallest modulus we generate; Salt itself refuses anything below 2048 in salt-key. */
const MIN_BITS = 1024;
const MAX_BITS = 16384;

/**
 * A fresh RSA key pair in Salt's file formats (public exponent 65537).
 * @example const { privatePem, publicPem } = generateKeyPair(2048);
 */
export function generateKeyPair(bits = 2048): KeyPairPem {
  if (!Number.isInteger(bits) || bits < MIN_BITS || bits > MAX_BITS || bits % 8 !== 0) {
    throw new CryptoError('BAD_KEYSIZE', `RSA key size ${String(bits)} is not usable`, {
      hint: `use a multiple of 8 between ${MIN_BITS} and ${MAX_BITS} (Salt's default is 2048)`,
    });
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicExponent: 0x10001,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

// PEM text -> KeyObject, so the hot path (every request checks a signature or a tok) never
// re-parses a PEM. Bounded so that a stream of distinct keys cannot grow it without limit. Not
// smaller for public keys, though each KeyObject holds about 2 KiB of native memory: a sign-in
// storm uses each minion's key four times within seconds (the key decision, the reply's
// encryption, the first tok, the first pillar), and with 64 entries the 10,000-minion storm took
// 72-75 s against 43-52 s (more parsing on the main thread, more sign-ins timed out and sent again).
const CACHE_LIMIT = 4096;
const privateCache = new Map<string, KeyObject>();
const publicCache = new Map<string, KeyObject>();

function remember(cache: Map<string, KeyObject>, pem: string, key: KeyObject): KeyObject {
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(pem, key);
  return key;
}

function pemText(pem: string | Buffer, what: string): string {
  if (typeof pem !== 'string' && !Buffer.isBuffer(pem)) {
    throw new CryptoError('BAD_KEY', `${what} must be PEM text or a KeyObject, got ${pem === null ? 'null' : typeof pem}`);
  }
  const text = typeof pem === 'string' ? pem : pem.toString('utf8');
  if (!text.includes('-----BEGIN ')) {
    throw new CryptoError('BAD_KEY', `${what} is not PEM text (no -----BEGIN line)`);
  }
  return text;
}

/** Load an RSA private key from PKCS#1 or PKCS#8 PEM (unencrypted). */
export function privateKeyFromPem(pem: string | Buffer): KeyObject {
  const text = pemText(pem, 'private key');
  const cached = privateCache.get(text);
  if (cached) return cached;
  if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(text)) {
    throw new CryptoError('BAD_KEY', 'private key PEM must be "RSA PRIVATE KEY" or "PRIVATE KEY"');
  }
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: text, format: 'pem' });
  } catch (cause) {
    throw new CryptoError('BAD_KEY', 'private key PEM could not be parsed', { cause });
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new CryptoError('BAD_KEY', `private key is ${String(key.asymmetricKeyType)}, not RSA`);
  }
  return remember(privateCache, text, key);
}

/** Load an RSA public key from SubjectPublicKeyInfo (`PUBLIC KEY`) or PKCS#1 (`RSA PUBLIC KEY`) PEM. */
export function publicKeyFromPem(pem: string | Buffer): KeyObject {
  const text = pemText(pem, 'public key');
  const cached = publicCache.get(text);
  if (cached) return cached;
  // Refuse private PEMs here: createPublicKey would silently derive the public half.
  if (!/-----BEGIN (RSA )?PUBLIC KEY-----/.test(text)) {
    throw new CryptoError('BAD_KEY', 'public key PEM must be "PUBLIC KEY" or "RSA PUBLIC KEY"');
  }
  let key: KeyObject;
  try {
    key = loadPublicPem(text);
  } catch (cause) {
    throw new CryptoError('BAD_KEY', 'public key PEM could not be parsed', { cause });
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new CryptoError('BAD_KEY', `public key is ${String(key.asymmetricKeyType)}, not RSA`);
  }
  return remember(publicCache, text, key);
}

/** Through PKCS#1 DER when the PEM is a plain RSA key (30x faster, see spki.ts); else OpenSSL's PEM reader. */
function loadPublicPem(text: string): KeyObject {
  const spki = pemToDer(text, 'PUBLIC KEY');
  const pkcs1 = spki ? pkcs1FromSpki(spki) : pemToDer(text, 'RSA PUBLIC KEY');
  if (pkcs1) {
    try {
      return createPublicKey({ key: pkcs1, format: 'der', type: 'pkcs1' });
    } catch {
      // malformed inside: OpenSSL's PEM reader below gives its own error
    }
  }
  return createPublicKey({ key: text, format: 'pem' });
}

/** The SubjectPublicKeyInfo PEM (`BEGIN PUBLIC KEY`, trailing newline) of a private or public key. */
export function publicPemOf(key: RsaKeyInput): string {
  const obj = key instanceof KeyObject ? key : loadAny(key);
  const pub = obj.type === 'private' ? createPublicKey(obj) : obj;
  // The same bytes OpenSSL's SPKI PEM writer gives, in a thirtieth of the time (see spki.ts).
  return derToPem(spkiFromPkcs1(pub.export({ type: 'pkcs1', format: 'der' })), 'PUBLIC KEY');
}

function loadAny(pem: string | Buffer): KeyObject {
  const text = pemText(pem, 'key');
  return /-----BEGIN (RSA )?PRIVATE KEY-----/.test(text) ? privateKeyFromPem(text) : publicKeyFromPem(text);
}

function asPrivate(key: RsaKeyInput): KeyObject {
  const obj = key instanceof KeyObject ? key : privateKeyFromPem(key);
  if (obj.type !== 'private' || obj.asymmetricKeyType !== 'rsa') {
    throw new CryptoError('BAD_KEY', 'an RSA private key is needed here');
  }
  return obj;
}

function asPublic(key: RsaKeyInput): KeyObject {
  // A private key also serves where a public one is needed (node derives it).
  const obj = key instanceof KeyObject ? key : publicKeyFromPem(key);
  if (obj.type === 'secret' || obj.asymmetricKeyType !== 'rsa') {
    throw new CryptoError('BAD_KEY', 'an RSA public key is needed here');
  }
  return obj;
}

/** The length of a hash's digest, in bytes. */
const DIGEST_BYTES: Record<RsaHash, number> = { sha1: 20, sha224: 28 };

/**
 * RSA-OAEP (`hash` and MGF1 with it, empty label; SHA-1 unless a minion's `encryption_algorithm`
 * asks for SHA-224) encryption to `pub`.
 */
export function oaepEncrypt(pub: RsaKeyInput, data: Buffer, hash: RsaHash = 'sha1'): Buffer {
  const key = asPublic(pub);
  data = asBytes(data, 'OAEP plaintext');
  const max = publicParams(key).size - 2 * DIGEST_BYTES[hash] - 2;
  if (data.length > max) {
    throw new CryptoError('DATA_TOO_LONG', `OAEP-${hash.toUpperCase()} can carry at most ${max} bytes with this key, got ${data.length}`);
  }
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash }, data);
}

/** RSA-OAEP (`hash`, SHA-1 by default) decryption; a ciphertext not made for this key is `DECRYPT_FAILED`. */
export function oaepDecrypt(priv: RsaKeyInput, data: Buffer, hash: RsaHash = 'sha1'): Buffer {
  const key = asPrivate(priv);
  data = asBytes(data, 'OAEP ciphertext');
  const size = publicParams(key).size;
  if (data.length !== size) {
    throw new CryptoError('DECRYPT_FAILED', `RSA ciphertext must be ${size} bytes for this key, got ${data.length}`);
  }
  try {
    return privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: hash }, data);
  } catch (cause) {
    throw new CryptoError('DECRYPT_FAILED', 'RSA-OAEP decryption failed (wrong key or damaged ciphertext)', { cause });
  }
}

/** PKCS#1 v1.5 signature with SHA-1 (deterministic). */
export function signPkcs1v15Sha1(priv: RsaKeyInput, data: Buffer): Buffer {
  return signPkcs1v15(priv, data, 'sha1');
}

/** PKCS#1 v1.5 signature with `hash` (deterministic): Salt's signing algorithms (rsa-algorithms.ts). */
export function signPkcs1v15(priv: RsaKeyInput, data: Buffer, hash: RsaHash): Buffer {
  const key = asPrivate(priv);
  data = asBytes(data, 'signed data');
  return sign(hash, data, { key, padding: constants.RSA_PKCS1_PADDING });
}

/**
 * {@link signPkcs1v15} on libuv's thread pool (node:crypto's asynchronous `sign`): the same
 * bytes, and the event loop free while the private key works.
 */
export function signPkcs1v15Async(priv: RsaKeyInput, data: Buffer, hash: RsaHash): Promise<Buffer> {
  const key = asPrivate(priv);
  data = asBytes(data, 'signed data');
  return new Promise((resolve, reject) =>
    sign(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, (err, signature) =>
      err ? reject(new CryptoError('SIGN_FAILED', `RSA signing failed: ${err.message}`, { cause: err })) : resolve(signature),
    ),
  );
}

/**
 * {@link oaepDecrypt} on libuv's thread pool, for one private key: node:crypto's `privateDecrypt`
 * has no asynchronous form, WebCrypto's RSA-OAEP (SHA-1, empty label: the same scheme) does. Node
 * runs one WebCrypto decryption per imported key at a time, so the key is imported `parallel`
 * times and the copies taken in turn.
 */
export async function oaepDecrypterAsync(priv: RsaKeyInput, parallel: number): Promise<(data: Buffer) => Promise<Buffer>> {
  if (!Number.isSafeInteger(parallel) || parallel < 1) {
    throw new CryptoError('BAD_INPUT', `decryptions at once must be a whole number >= 1, not ${String(parallel)}`);
  }
  const key = asPrivate(priv);
  const size = publicParams(key).size;
  const der = key.export({ type: 'pkcs8', format: 'der' });
  const algorithm = { name: 'RSA-OAEP', hash: 'SHA-1' };
  const copies = await Promise.all(
    Array.from({ length: parallel }, () => webcrypto.subtle.importKey('pkcs8', der, algorithm, false, ['decrypt'])),
  );
  let next = 0;
  return async (data: Buffer): Promise<Buffer> => {
    data = asBytes(data, 'OAEP ciphertext');
    if (data.length !== size) {
      throw new CryptoError('DECRYPT_FAILED', `RSA ciphertext must be ${size} bytes for this key, got ${data.length}`);
    }
    const copy = copies[next];
    next = (next + 1) % copies.length;
    try {
      return Buffer.from(await webcrypto.subtle.decrypt({ name: 'RSA-OAEP' }, copy, data));
    } catch (cause) {
      throw new CryptoError('DECRYPT_FAILED', 'RSA-OAEP decryption failed (wrong key or damaged ciphertext)', { cause });
    }
  };
}

/** Check a PKCS#1 v1.5 SHA-1 signature; any malformed signature is simply `false`. */
export function verifyPkcs1v15Sha1(pub: RsaKeyInput, data: Buffer, signature: Buffer): boolean {
  return verifyPkcs1v15(pub, data, signature, 'sha1');
}

/** Check a PKCS#1 v1.5 signature with `hash`; any malformed signature is simply `false`. */
export function verifyPkcs1v15(pub: RsaKeyInput, data: Buffer, signature: Buffer, hash: RsaHash): boolean {
  const key = asPublic(pub);
  if (!(data instanceof Uint8Array) || !(signature instanceof Uint8Array)) return false;
  if (signature.length !== publicParams(key).size) return false;
  try {
    return verify(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
  } catch {
    return false;
  }
}

/** X9.31 signing (OpenSSL RSA_private_encrypt, RSA_X931_PADDING): deterministic, modulus-sized. */
export function x931Sign(priv: RsaKeyInput, message: Buffer): Buffer {
  return x931SignRaw(asPrivate(priv), asBytes(message, 'X9.31 message'));
}

/** Open an X9.31 signature with the public key: the signed message, or `BAD_SIGNATURE`/`BAD_PADDING`. */
export function x931Open(pub: RsaKeyInput, signature: Buffer): Buffer {
  return x931OpenRaw(asPublic(pub), asBytes(signature, 'X9.31 signature'));
}
