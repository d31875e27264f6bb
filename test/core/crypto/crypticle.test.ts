import { createHmac, KeyObject, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { cryptoVectors } from './vectors';
import { codeOf } from '../../support/errors';

const vectors = cryptoVectors().crypticle;
const hex = (h: string) => Buffer.from(h, 'hex');

describe('Crypticle against captured Salt messages', () => {
  it('has the four captured vectors', () => {
    expect(vectors.length).toBe(4);
  });

  for (const v of vectors) {
    it(`decrypts: ${v.label}`, () => {
      expect(new Crypticle(v.key_string).decrypt(hex(v.message_hex)).toString('hex')).toBe(v.plaintext_hex);
    });

    it(`re-encrypts byte for byte with the captured IV: ${v.label}`, () => {
      const message = new Crypticle(v.key_string).encryptWithIv(hex(v.plaintext_hex), hex(v.iv_hex));
      expect(message.toString('hex')).toBe(v.message_hex);
      expect(message.subarray(16, message.length - 32).toString('hex')).toBe(v.ciphertext_hex);
      expect(message.subarray(message.length - 32).toString('hex')).toBe(v.hmac_sha256_hex);
      expect(message.length - 48 - v.plaintext_hex.length / 2).toBe(v.pkcs7_pad_len);
    });
  }
});

describe('Crypticle', () => {
  const v = vectors[0];
  const message = hex(v.message_hex);

  it("keeps its key as bytes in a slab of keys: no KeyObject (1 KiB of native memory each, per master session), not Node's shared pool", () => {
    const keys = Array.from({ length: 200 }, () => Crypticle.generateKeyString());
    const crypticles = keys.map((k) => new Crypticle(k));
    const slabs = new Set<ArrayBufferLike>();
    for (const c of crypticles) {
      const fields = Object.values(c) as unknown[];
      expect(fields.some((f) => f instanceof KeyObject)).toBe(false);
      for (const f of fields.filter((x): x is Buffer => Buffer.isBuffer(x))) {
        // 64 keys of 56 bytes a slab, never a slice of Node's 8 KiB pool that other buffers share.
        expect(f.buffer.byteLength).toBe(56 * 64);
        slabs.add(f.buffer);
      }
    }
    expect(slabs.size).toBeGreaterThanOrEqual(4);
    expect(slabs.size).toBeLessThanOrEqual(5);
    // Each key its own bytes in the slab: every one still encrypts for itself alone.
    const plain = randomBytes(100);
    crypticles.forEach((c, i) => {
      expect(c.keyString()).toBe(keys[i]);
      expect(c.decrypt(c.encrypt(plain))).toEqual(plain);
    });
    expect(() => crypticles[1].decrypt(crypticles[0].encrypt(plain))).toThrow(/HMAC/);
  });

  it('generates 76-character key strings of 56 bytes that round-trip', () => {
    const key = Crypticle.generateKeyString();
    expect(key).toHaveLength(76);
    expect(Buffer.from(key, 'base64')).toHaveLength(56);
    const c = new Crypticle(key);
    // The master hands a session's key out again from its Crypticle alone.
    expect(c.keyString()).toBe(key);
    for (const size of [0, 1, 15, 16, 17, 1000]) {
      const plain = Buffer.alloc(size, 7);
      const enc = c.encrypt(plain);
      expect(enc.length).toBe(16 + (Math.floor(size / 16) + 1) * 16 + 32);
      expect(c.decrypt(enc).equals(plain)).toBe(true);
    }
  });

  it('uses a fresh IV each time', () => {
    const c = new Crypticle(Crypticle.generateKeyString());
    expect(c.encrypt(Buffer.from('x')).equals(c.encrypt(Buffer.from('x')))).toBe(false);
  });

  it('never reuses an IV across refills of the IV pool', () => {
    const c = new Crypticle(Crypticle.generateKeyString());
    const ivs = new Set<string>();
    // 4 KiB pools of 16-byte IVs: 1,000 messages span several refills.
    for (let i = 0; i < 1000; i++) ivs.add(c.encrypt(Buffer.from('x')).subarray(0, 16).toString('hex'));
    expect(ivs.size).toBe(1000);
  });

  it('rejects a flipped bit in the ciphertext, the IV and the HMAC with BAD_HMAC', () => {
    const c = new Crypticle(v.key_string);
    for (const at of [0, 20, message.length - 1]) {
      const tampered = Buffer.from(message);
      tampered[at] ^= 0x01;
      expect(codeOf(() => c.decrypt(tampered))).toBe('BAD_HMAC');
    }
  });

  it('rejects the wrong key with BAD_HMAC', () => {
    expect(codeOf(() => new Crypticle(vectors[1].key_string).decrypt(message))).toBe('BAD_HMAC');
  });

  it('rejects truncated and empty messages with TRUNCATED', () => {
    const c = new Crypticle(v.key_string);
    expect(codeOf(() => c.decrypt(message.subarray(0, message.length - 1)))).toBe('TRUNCATED');
    expect(codeOf(() => c.decrypt(message.subarray(0, 48)))).toBe('TRUNCATED');
    expect(codeOf(() => c.decrypt(Buffer.alloc(0)))).toBe('TRUNCATED');
  });

  it('rejects a correctly authenticated message whose padding is bad with BAD_PADDING', () => {
    // Build a message whose last block decrypts to a pad byte of 0: same keys, authentic HMAC.
    const c = new Crypticle(v.key_string);
    const good = c.encryptWithIv(Buffer.alloc(15, 1), Buffer.alloc(16, 9)); // pad = 0x01
    const iv = Buffer.from(good.subarray(0, 16));
    iv[15] ^= 0x01; // CBC: flipping IV bit flips the pad byte 0x01 -> 0x00
    const body = Buffer.concat([iv, good.subarray(16, good.length - 32)]);
    const mac = createHmac('sha256', hex(v.hmac_key_hex)).update(body).digest();
    expect(codeOf(() => c.decrypt(Buffer.concat([body, mac])))).toBe('BAD_PADDING');
  });

  it('rejects bad key strings with BAD_KEY', () => {
    expect(codeOf(() => new Crypticle('short'))).toBe('BAD_KEY');
    expect(codeOf(() => new Crypticle(''))).toBe('BAD_KEY');
    expect(codeOf(() => new Crypticle('!'.repeat(76)))).toBe('BAD_KEY');
    expect(codeOf(() => new Crypticle(Buffer.alloc(48).toString('base64')))).toBe('BAD_KEY');
    expect(codeOf(() => new Crypticle(42 as unknown as string))).toBe('BAD_KEY');
  });

  it('rejects an IV of the wrong size with BAD_IV', () => {
    expect(codeOf(() => new Crypticle(v.key_string).encryptWithIv(Buffer.from('x'), Buffer.alloc(8)))).toBe('BAD_IV');
  });
});

describe('Crypticle on garbage', () => {
  it('throws only CryptoError for non-bytes and random bytes', () => {
    const c = new Crypticle(vectors[0].key_string);
    for (const g of [undefined, null, 'string', 42, {}, new Uint8Array(64), ...Array.from({ length: 200 }, (_, i) => randomBytes(i))]) {
      try {
        c.decrypt(g as Buffer);
        expect.unreachable('garbage decrypted');
      } catch (err) {
        expect((err as Error).name).toBe('CryptoError');
      }
    }
    expect(codeOf(() => c.encrypt('text' as unknown as Buffer))).toBe('BAD_INPUT');
  });

  it('decrypts a Uint8Array message', () => {
    const v = vectors[2];
    expect(Buffer.from(new Crypticle(v.key_string).decrypt(new Uint8Array(hex(v.message_hex)) as Buffer)).toString('hex')).toBe(
      v.plaintext_hex,
    );
  });
});
