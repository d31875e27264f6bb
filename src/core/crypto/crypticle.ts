/**
 * Salt's Crypticle: authenticated symmetric encryption of every AES-channel payload.
 *
 * Key string = base64 of 56 bytes: AES-192 key (first 24) + HMAC-SHA256 key (last 32).
 * Message = IV (16 random bytes) || AES-192-CBC(PKCS#7, pad 1..16) || HMAC-SHA256(IV || ciphertext).
 * Bytes only: the `pickle::` prefix, nonces and msgpack belong to the channel.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CryptoError } from '../errors';
import { asBytes } from './bytes';

const AES_KEY_BYTES = 24;
const HMAC_KEY_BYTES = 32;
const KEY_BYTES = AES_KEY_BYTES + HMAC_KEY_BYTES;
const IV_BYTES = 16;
const BLOCK = 16;
const MAC_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * IVs are cut from a pool of CSPRNG bytes refilled 4 KiB at a time, as Node's randomUUID caches
 * its randomness: randomBytes(16) per message cost ~5 µs of CPU (a native call into OpenSSL's RNG),
 * which the master paid on every reply. The bytes are as unpredictable, and each is used once.
 */
const IV_POOL_BYTES = 4096;
let ivPool = Buffer.alloc(0);
let ivAt = 0;

function freshIv(): Buffer {
  if (ivAt + IV_BYTES > ivPool.length) {
    ivPool = randomBytes(IV_POOL_BYTES);
    ivAt = 0;
  }
  const iv = ivPool.subarray(ivAt, ivAt + IV_BYTES);
  ivAt += IV_BYTES;
  return iv;
}

/**
 * Keys are cut from slabs of 64 (3.5 KiB), each slab an ArrayBuffer of its own: an ArrayBuffer per
 * key cost about 350 bytes more in native memory (V8's backing store and its bookkeeping) than
 * its 56 bytes, 3.4 MiB at 10,000 master sessions. Not Node's shared 8 KiB pool, which any short
 * Buffer may pin; a slab is freed when its last key is.
 */
const KEYS_PER_SLAB = 64;
let keySlab = new Uint8Array(0);
let keySlabAt = 0;

function keyBytes(): Buffer {
  if (keySlabAt + KEY_BYTES > keySlab.length) {
    keySlab = new Uint8Array(KEY_BYTES * KEYS_PER_SLAB);
    keySlabAt = 0;
  }
  const key = Buffer.from(keySlab.buffer, keySlabAt, KEY_BYTES);
  keySlabAt += KEY_BYTES;
  return key;
}

/**
 * The key's two parts are kept as bytes, not as KeyObjects: a master holds one Crypticle per
 * signed-in minion, and Node's KeyObject costs about 1 KiB of native memory each (20 MiB for
 * 10,000 sessions, measured), where 56 bytes of their own do. Node takes raw keys as well;
 * a message costs under a microsecond more.
 */
export class Crypticle {
  private readonly aesKey: Buffer;
  private readonly hmacKey: Buffer;

  /** A fresh key string: base64 of 56 random bytes (76 characters), as Salt makes them. */
  static generateKeyString(): string {
    return randomBytes(KEY_BYTES).toString('base64');
  }

  constructor(keyString: string) {
    if (typeof keyString !== 'string' || keyString.length % 4 !== 0 || !BASE64.test(keyString)) {
      throw new CryptoError('BAD_KEY', 'Crypticle key string is not base64 text');
    }
    const raw = Buffer.from(keyString, 'base64');
    if (raw.length !== KEY_BYTES) {
      throw new CryptoError('BAD_KEY', `Crypticle key must decode to ${KEY_BYTES} bytes, got ${raw.length}`);
    }
    // Its 56 bytes in a slab of keys: Buffer.from may hand out a slice of Node's shared 8 KiB
    // pool, which one long-lived session would then hold whole.
    const key = keyBytes();
    raw.copy(key);
    raw.fill(0);
    this.aesKey = key.subarray(0, AES_KEY_BYTES);
    this.hmacKey = key.subarray(AES_KEY_BYTES);
  }

  /** The key string this Crypticle was made from (base64 of its 56 bytes). */
  keyString(): string {
    return Buffer.from(this.aesKey.buffer, this.aesKey.byteOffset, KEY_BYTES).toString('base64');
  }

  /** IV || AES-192-CBC(plain) || HMAC-SHA256, with a fresh random IV. */
  encrypt(plain: Buffer): Buffer {
    return this.encryptWithIv(asBytes(plain, 'plaintext'), freshIv());
  }

  /**
   * Encryption with a given IV, so that tests can reproduce captured messages byte for byte.
   * @internal Never call this with a fixed or reused IV outside tests.
   */
  encryptWithIv(plain: Buffer, iv: Buffer): Buffer {
    plain = asBytes(plain, 'plaintext');
    iv = asBytes(iv, 'IV');
    if (iv.length !== IV_BYTES) {
      throw new CryptoError('BAD_IV', `IV must be ${IV_BYTES} bytes, got ${iv.length}`);
    }
    const padded = (Math.floor(plain.length / BLOCK) + 1) * BLOCK;
    const out = Buffer.allocUnsafe(IV_BYTES + padded + MAC_BYTES);
    iv.copy(out, 0);
    const cipher = createCipheriv('aes-192-cbc', this.aesKey, iv);
    let at = IV_BYTES;
    at += cipher.update(plain).copy(out, at);
    at += cipher.final().copy(out, at);
    const mac = createHmac('sha256', this.hmacKey).update(out.subarray(0, at)).digest();
    mac.copy(out, at);
    return out;
  }

  /** Check the HMAC (constant time) and only then decrypt; returns the plaintext without padding. */
  decrypt(message: Buffer): Buffer {
    message = asBytes(message, 'Crypticle message');
    const bodyLength = message.length - IV_BYTES - MAC_BYTES;
    if (bodyLength < BLOCK || bodyLength % BLOCK !== 0) {
      throw new CryptoError('TRUNCATED', `Crypticle message of ${message.length} bytes is not IV + whole blocks + HMAC`);
    }
    const macAt = message.length - MAC_BYTES;
    const expected = createHmac('sha256', this.hmacKey).update(message.subarray(0, macAt)).digest();
    if (!timingSafeEqual(expected, message.subarray(macAt))) {
      throw new CryptoError('BAD_HMAC', 'message HMAC does not match (wrong key or tampered message)');
    }
    const decipher = createDecipheriv('aes-192-cbc', this.aesKey, message.subarray(0, IV_BYTES));
    decipher.setAutoPadding(false);
    // No padding to strip in the cipher (it is checked below), so final() adds nothing.
    const plain = decipher.update(message.subarray(IV_BYTES, macAt));
    decipher.final();
    const pad = plain[plain.length - 1];
    if (pad < 1 || pad > BLOCK) {
      throw new CryptoError('BAD_PADDING', `PKCS#7 pad length ${pad} is outside 1..16`);
    }
    for (let i = plain.length - pad; i < plain.length; i++) {
      if (plain[i] !== pad) throw new CryptoError('BAD_PADDING', 'PKCS#7 padding bytes are inconsistent');
    }
    return plain.subarray(0, plain.length - pad);
  }
}
