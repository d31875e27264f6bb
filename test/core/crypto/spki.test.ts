import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { publicKeyFromPem, publicPemOf } from '../../../src/core/crypto/rsa';
import { derToPem, pemToDer, pkcs1FromSpki, spkiFromPkcs1 } from '../../../src/core/crypto/spki';

// Sizes whose DER lengths take one, two and three length bytes in different places.
const SIZES = [1024, 1032, 2048, 3072, 4096];
const pairs = SIZES.map((bits) => ({ bits, ...generateKeyPairSync('rsa', { modulusLength: bits }) }));

describe('SPKI <-> PKCS#1 by hand, byte for byte what OpenSSL gives', () => {
  it.each(pairs)('$bits-bit: unwraps and wraps to the same bytes as OpenSSL', ({ publicKey }) => {
    const spki = publicKey.export({ type: 'spki', format: 'der' });
    const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'der' });
    expect(pkcs1FromSpki(spki)).toEqual(pkcs1);
    expect(spkiFromPkcs1(pkcs1)).toEqual(spki);
    expect(derToPem(spki, 'PUBLIC KEY')).toBe(publicKey.export({ type: 'spki', format: 'pem' }));
  });

  it.each(pairs)('$bits-bit: publicPemOf and publicKeyFromPem agree with OpenSSL', ({ publicKey, privateKey }) => {
    const pem = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(publicPemOf(privateKey)).toBe(pem);
    expect(publicPemOf(publicKey)).toBe(pem);
    expect(publicKeyFromPem(pem).equals(createPublicKey(pem))).toBe(true);
    const pkcs1Pem = publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(publicKeyFromPem(pkcs1Pem).equals(publicKey)).toBe(true);
    // CRLF line endings, as a key copied from Windows has them
    expect(publicKeyFromPem(pem.replace(/\n/g, '\r\n')).equals(publicKey)).toBe(true);
  });

  it('leaves anything but a plain RSA SPKI to OpenSSL', () => {
    const { publicKey: ec } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(pkcs1FromSpki(ec.export({ type: 'spki', format: 'der' }))).toBeUndefined();
    expect(() => publicKeyFromPem(ec.export({ type: 'spki', format: 'pem' }) as string)).toThrow(/not RSA/);
    const spki = pairs[2]!.publicKey.export({ type: 'spki', format: 'der' });
    expect(pkcs1FromSpki(spki.subarray(0, spki.length - 1))).toBeUndefined(); // cut short
    expect(pkcs1FromSpki(Buffer.concat([spki, Buffer.from([0])]))).toBeUndefined(); // trailing byte
    const unusedBits = Buffer.from(spki);
    unusedBits[unusedBits.indexOf(0x03, 15) + 3] = 1;
    expect(pkcs1FromSpki(unusedBits)).toBeUndefined();
  });

  it('reads only one plain PEM block', () => {
    const pem = pairs[0]!.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    expect(pemToDer(pem, 'PUBLIC KEY')).toEqual(pairs[0]!.publicKey.export({ type: 'spki', format: 'der' }));
    expect(pemToDer(`junk\n${pem}`, 'PUBLIC KEY')).toBeUndefined();
    expect(pemToDer(pem.replace('MI', 'M!'), 'PUBLIC KEY')).toBeUndefined();
    expect(pemToDer(pem, 'RSA PUBLIC KEY')).toBeUndefined();
  });

  it('refuses a damaged key with the key error, whichever reader saw it', () => {
    const pem = pairs[2]!.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const lines = pem.split('\n');
    lines[1] = 'A'.repeat(64); // the algorithm identifier gone: OpenSSL's reader refuses it
    expect(() => publicKeyFromPem(lines.join('\n'))).toThrow(/could not be parsed/);
    const pkcs1 = Buffer.from(pairs[2]!.publicKey.export({ type: 'pkcs1', format: 'der' }));
    pkcs1[0] = 0x31; // a SET where the RSAPublicKey SEQUENCE should be: the fast reader's DER fails too
    expect(() => publicKeyFromPem(derToPem(spkiFromPkcs1(pkcs1), 'PUBLIC KEY'))).toThrow(/could not be parsed/);
    expect(() => publicKeyFromPem('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n')).toThrow(/could not be parsed/);
  });
});
