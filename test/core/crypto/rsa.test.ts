import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fingerprint,
  generateKeyPair,
  oaepDecrypt,
  oaepEncrypt,
  privateKeyFromPem,
  publicKeyFromPem,
  publicPemOf,
  signPkcs1v15Sha1,
  verifyPkcs1v15Sha1,
  x931Open,
  x931Sign,
} from '../../../src/core/crypto/rsa';
import { cryptoVectors, publicKeyFileOf, wireFile } from './vectors';
import { codeOf } from '../../support/errors';

const vectors = cryptoVectors();
const hex = (h: string) => Buffer.from(h, 'hex');

describe('X9.31 against captured Salt signatures', () => {
  it('has the four captured vectors', () => {
    expect(vectors.x931.length).toBe(4);
  });

  for (const v of vectors.x931) {
    it(`reproduces byte for byte: ${v.label}`, () => {
      const sig = x931Sign(wireFile(v.private_key), Buffer.from(v.message));
      expect(sig.toString('hex')).toBe(v.signature_hex);
    });

    it(`opens back to the message: ${v.label}`, () => {
      const opened = x931Open(wireFile(publicKeyFileOf(v.private_key)), hex(v.signature_hex));
      expect(opened.toString()).toBe(v.message);
    });
  }

  it('rejects a flipped bit, a wrong key and a wrong length', () => {
    const v = vectors.x931[0];
    const pub = wireFile(publicKeyFileOf(v.private_key));
    const sig = hex(v.signature_hex);
    const flipped = Buffer.from(sig);
    flipped[100] ^= 0x10;
    expect(codeOf(() => x931Open(pub, flipped))).toBe('BAD_PADDING');
    expect(codeOf(() => x931Open(wireFile('keys/master.pub'), sig))).toBe('BAD_PADDING');
    expect(codeOf(() => x931Open(pub, sig.subarray(1)))).toBe('BAD_SIGNATURE');
    expect(codeOf(() => x931Open(pub, Buffer.alloc(256, 0xff)))).toBe('BAD_SIGNATURE');
  });

  it('round-trips every message length, including the 6A form that exactly fits', () => {
    const priv = wireFile('keys/db1.pem');
    const pub = wireFile('keys/db1.pub');
    for (const len of [0, 1, 32, 253, 254]) {
      const msg = Buffer.alloc(len, 0x5a);
      expect(x931Open(pub, x931Sign(priv, msg)).equals(msg)).toBe(true);
    }
    expect(codeOf(() => x931Sign(priv, Buffer.alloc(255)))).toBe('DATA_TOO_LONG');
  });
});

describe('PKCS#1 v1.5 SHA-1 against captured Salt signatures', () => {
  for (const v of vectors.pkcs1v15_sha1) {
    it(`reproduces and verifies: ${v.label}`, () => {
      const data = hex(v.data_hex);
      expect(signPkcs1v15Sha1(wireFile(v.private_key), data).toString('hex')).toBe(v.signature_hex);
      expect(verifyPkcs1v15Sha1(wireFile(publicKeyFileOf(v.private_key)), data, hex(v.signature_hex))).toBe(true);
    });
  }

  it('rejects tampered data, tampered signatures, a wrong key and garbage', () => {
    const v = vectors.pkcs1v15_sha1[1];
    const pub = wireFile('keys/master.pub');
    const data = hex(v.data_hex);
    const sig = hex(v.signature_hex);
    const badSig = Buffer.from(sig);
    badSig[5] ^= 0x01;
    const badData = Buffer.from(data);
    badData[0] ^= 0x01;
    expect(verifyPkcs1v15Sha1(pub, data, badSig)).toBe(false);
    expect(verifyPkcs1v15Sha1(pub, badData, sig)).toBe(false);
    expect(verifyPkcs1v15Sha1(wireFile('keys/web1.pub'), data, sig)).toBe(false);
    expect(verifyPkcs1v15Sha1(pub, data, Buffer.alloc(0))).toBe(false);
    expect(verifyPkcs1v15Sha1(pub, data, Buffer.alloc(256, 0xff))).toBe(false);
  });
});

describe('RSA-OAEP SHA-1', () => {
  for (const v of vectors.rsa_oaep_sha1) {
    it(`decrypts the captured ciphertext: ${v.label}`, () => {
      expect(oaepDecrypt(wireFile(v.private_key), hex(v.ciphertext_hex)).toString()).toBe(v.plaintext);
    });
  }

  it('round-trips and is randomised', () => {
    const data = Buffer.from('QqjnKzxDvDDMp5PHtuy5+QhiqQzma3ulFkujCs6A29i0fhLz0Lz2yrJEU4PDel1IHCR89RYx4No=');
    const a = oaepEncrypt(wireFile('keys/web2.pub'), data);
    const b = oaepEncrypt(wireFile('keys/web2.pub'), data);
    expect(a.equals(b)).toBe(false);
    expect(oaepDecrypt(wireFile('keys/web2.pem'), a).equals(data)).toBe(true);
  });

  it('rejects a wrong key, a flipped bit, a wrong length and too much data', () => {
    const v = vectors.rsa_oaep_sha1[0];
    const ct = hex(v.ciphertext_hex);
    const flipped = Buffer.from(ct);
    flipped[10] ^= 0x01;
    expect(codeOf(() => oaepDecrypt(wireFile('keys/web1.pem'), ct))).toBe('DECRYPT_FAILED');
    expect(codeOf(() => oaepDecrypt(wireFile('keys/master.pem'), flipped))).toBe('DECRYPT_FAILED');
    expect(codeOf(() => oaepDecrypt(wireFile('keys/master.pem'), ct.subarray(2)))).toBe('DECRYPT_FAILED');
    expect(codeOf(() => oaepEncrypt(wireFile('keys/master.pub'), Buffer.alloc(215)))).toBe('DATA_TOO_LONG');
    expect(oaepEncrypt(wireFile('keys/master.pub'), Buffer.alloc(214))).toHaveLength(256);
  });
});

describe('key files', () => {
  it('generates Salt-format PEMs that work together', () => {
    const { privatePem, publicPem } = generateKeyPair(1024);
    expect(privatePem.startsWith('-----BEGIN RSA PRIVATE KEY-----\n')).toBe(true);
    expect(privatePem.endsWith('-----END RSA PRIVATE KEY-----\n')).toBe(true);
    expect(publicPem.startsWith('-----BEGIN PUBLIC KEY-----\n')).toBe(true);
    expect(publicPem.endsWith('-----END PUBLIC KEY-----\n')).toBe(true);
    expect(publicPemOf(privatePem)).toBe(publicPem);
    const sig = x931Sign(privatePem, Buffer.from('salt'));
    expect(sig).toHaveLength(128);
    expect(x931Open(publicPem, sig).toString()).toBe('salt');
  });

  it('generates 2048-bit keys by default', () => {
    const { publicPem } = generateKeyPair();
    expect(createPublicKey(publicPem).asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('refuses unusable key sizes', () => {
    expect(codeOf(() => generateKeyPair(512))).toBe('BAD_KEYSIZE');
    expect(codeOf(() => generateKeyPair(2047))).toBe('BAD_KEYSIZE');
    expect(codeOf(() => generateKeyPair(Number.NaN))).toBe('BAD_KEYSIZE');
  });

  it('loads PKCS#8 private and PKCS#1 public PEMs too', () => {
    const pkcs8 = createPrivateKey(wireFile('keys/web1.pem')).export({ type: 'pkcs8', format: 'pem' }).toString();
    const pkcs1pub = createPublicKey(wireFile('keys/web1.pub')).export({ type: 'pkcs1', format: 'pem' }).toString();
    expect(pkcs1pub.startsWith('-----BEGIN RSA PUBLIC KEY-----')).toBe(true);
    const sig = x931Sign(privateKeyFromPem(pkcs8), Buffer.from('salt'));
    expect(sig.toString('hex')).toBe(vectors.x931[0].signature_hex);
    expect(x931Open(publicKeyFromPem(pkcs1pub), sig).toString()).toBe('salt');
    expect(publicPemOf(pkcs1pub)).toBe(wireFile('keys/web1.pub'));
  });

  it('caches parsed keys', () => {
    const pem = wireFile('keys/master.pub');
    expect(publicKeyFromPem(pem)).toBe(publicKeyFromPem(pem));
    expect(privateKeyFromPem(wireFile('keys/master.pem'))).toBe(privateKeyFromPem(wireFile('keys/master.pem')));
  });

  it('rejects garbage, private keys as public keys and the reverse with BAD_KEY', () => {
    expect(codeOf(() => publicKeyFromPem('hello'))).toBe('BAD_KEY');
    expect(codeOf(() => publicKeyFromPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'))).toBe('BAD_KEY');
    expect(codeOf(() => publicKeyFromPem(wireFile('keys/master.pem')))).toBe('BAD_KEY');
    expect(codeOf(() => privateKeyFromPem(wireFile('keys/master.pub')))).toBe('BAD_KEY');
    expect(codeOf(() => x931Sign(publicKeyFromPem(wireFile('keys/master.pub')), Buffer.from('salt')))).toBe('BAD_KEY');
  });
});

describe('fingerprints (salt-key -F sample)', () => {
  const samples = wireFile('cli-output-samples.md');
  const section = samples.slice(samples.indexOf('## salt-key -F'));
  const expected = new Map<string, string>();
  for (const m of section.matchAll(/^(\S+?):  ([0-9a-f:]{95})$/gm)) expected.set(m[1], m[2]);

  it('finds the five sample fingerprints', () => {
    expect([...expected.keys()].sort()).toEqual(['db1', 'master.pem', 'master.pub', 'web1', 'web2']);
  });

  for (const file of ['master.pem', 'master.pub', 'db1.pub', 'web1.pub', 'web2.pub']) {
    it(`matches for keys/${file}`, () => {
      const name = file.startsWith('master') ? file : file.replace('.pub', '');
      expect(fingerprint(wireFile(`keys/${file}`))).toBe(expected.get(name));
    });
  }

  it('is the same for the wire form of a public key (stripped, no trailing newline)', () => {
    const pem = wireFile('keys/web1.pub');
    expect(fingerprint(pem.trim())).toBe(fingerprint(pem));
  });

  it('supports other hashes and rejects unknown ones', () => {
    expect(fingerprint(wireFile('keys/web1.pub'), 'md5')).toMatch(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/);
    expect(codeOf(() => fingerprint(wireFile('keys/web1.pub'), 'nope'))).toBe('BAD_HASH');
    expect(codeOf(() => fingerprint('not a key'))).toBe('BAD_KEY');
  });
});

describe('garbage in, typed errors out', () => {
  const garbage: unknown[] = [undefined, null, 42, 'text', {}, [], Buffer.alloc(0), Buffer.alloc(256, 0xff), new Uint8Array(7)];
  const pubPem = wireFile('keys/master.pub');
  const privPem = wireFile('keys/master.pem');

  function onlyCryptoErrors(fn: () => unknown): void {
    try {
      fn();
    } catch (err) {
      expect((err as Error).name).toBe('CryptoError');
    }
  }

  it('never throws anything but CryptoError for bad data or keys', () => {
    for (const g of garbage) {
      const bytes = g as Buffer;
      onlyCryptoErrors(() => x931Open(pubPem, bytes));
      onlyCryptoErrors(() => x931Sign(privPem, bytes));
      onlyCryptoErrors(() => oaepDecrypt(privPem, bytes));
      onlyCryptoErrors(() => oaepEncrypt(pubPem, bytes));
      onlyCryptoErrors(() => signPkcs1v15Sha1(privPem, bytes));
      expect(verifyPkcs1v15Sha1(pubPem, bytes, bytes)).toBe(false);
      onlyCryptoErrors(() => publicKeyFromPem(bytes));
      onlyCryptoErrors(() => privateKeyFromPem(bytes));
      onlyCryptoErrors(() => fingerprint(bytes));
      onlyCryptoErrors(() => x931Open(bytes, Buffer.alloc(256)));
    }
  });

  it('rejects random signatures of the right size without crashing', () => {
    for (let i = 0; i < 200; i++) {
      onlyCryptoErrors(() => x931Open(pubPem, randomBytes(256)));
      onlyCryptoErrors(() => oaepDecrypt(privPem, randomBytes(256)));
    }
  });

  it('takes a Uint8Array as bytes', () => {
    const sig = x931Sign(privPem, new Uint8Array(Buffer.from('salt')) as Buffer);
    expect(x931Open(pubPem, new Uint8Array(sig) as Buffer).toString()).toBe('salt');
  });
});
