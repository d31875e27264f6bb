import { describe, expect, it } from 'vitest';
import * as C from '../../../src/core/channel';
import { decode, encode } from '../../../src/core/protocol/msgpack';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { signPkcs1v15Sha1 } from '../../../src/core/crypto/rsa';
import { BrineError, CryptoError, ProtocolError } from '../../../src/core/errors';
import { allMessages, keyPem, lastFrame } from '../protocol/wire-vectors';
import { codeOf as codeOfAny } from '../../support/errors';

const codeOf = (fn: () => unknown, cls: abstract new (...args: never[]) => Error = BrineError) => codeOfAny(fn, cls);

const masterPub = keyPem('master.pub');
const masterPem = keyPem('master.pem');
const messages = allMessages();

function flip(buf: Buffer, at: number): Buffer {
  const out = Buffer.from(buf);
  out[at] ^= 0x01;
  return out;
}

/** Re-encode a decoded outer map with one field changed. */
function withField(frame: Buffer, name: string, value: unknown): Buffer {
  const outer = decode(frame) as Record<string, unknown>;
  return encode({ ...outer, [name]: value });
}

describe('tampered publications', () => {
  const pub = messages.find((m) => m.kind === 'publish')!;
  const frame = lastFrame(pub);
  const env = decode(frame) as { load: Buffer; sig: Buffer };

  it('a flipped bit in the encrypted load fails the signature first', () => {
    expect(codeOf(() => C.openPublication(withField(frame, 'load', flip(env.load, 20)), pub.aes_key_used, masterPub), CryptoError)).toBe(
      'BAD_SIGNATURE',
    );
  });

  it('a flipped bit in the signature', () => {
    expect(codeOf(() => C.openPublication(withField(frame, 'sig', flip(env.sig, 100)), pub.aes_key_used, masterPub), CryptoError)).toBe(
      'BAD_SIGNATURE',
    );
  });

  it('a re-signed load with a flipped ciphertext or HMAC bit is BAD_HMAC (not the master AES key)', () => {
    for (const at of [20, env.load.length - 1]) {
      const load = flip(env.load, at);
      const bytes = encode({ ...(decode(frame) as object), load, sig: signPkcs1v15Sha1(masterPem, load) });
      expect(codeOf(() => C.openPublication(bytes, pub.aes_key_used, masterPub), CryptoError)).toBe('BAD_HMAC');
    }
  });

  it('the wrong AES key (after a rotation) is BAD_HMAC', () => {
    expect(codeOf(() => C.openPublication(frame, Crypticle.generateKeyString(), masterPub), CryptoError)).toBe('BAD_HMAC');
  });

  it('truncated frames and wrong types', () => {
    for (const cut of [0, 1, 10, frame.length - 1]) {
      expect(codeOf(() => C.openPublication(frame.subarray(0, cut), pub.aes_key_used, masterPub), ProtocolError)).toMatch(/^MSGPACK_/);
    }
    expect(codeOf(() => C.openPublication(withField(frame, 'sig', 5), pub.aes_key_used, masterPub), ProtocolError)).toBe('BAD_LOAD');
    expect(codeOf(() => C.openPublication(encode([1, 2]), pub.aes_key_used, masterPub), ProtocolError)).toBe('BAD_LOAD');
    expect(codeOf(() => C.openPublication(withField(frame, 'enc', 'clear'), pub.aes_key_used, masterPub), ProtocolError)).toBe('BAD_LOAD');
  });

  it('an oversized declared length', () => {
    const bad = Buffer.from(frame);
    const at = bad.indexOf(Buffer.from([0xda]), 10); // the str16 header of `load`
    bad.writeUInt16BE(0xffff, at + 1);
    expect(codeOf(() => C.openPublication(bad, pub.aes_key_used, masterPub), ProtocolError)).toBe('MSGPACK_LENGTH');
  });
});

describe('tampered requests and replies', () => {
  const req = messages.find((m) => m.kind === 'aes-request:_return' && m.outer.id === 'web1')!;
  const tok = C.makeTok(keyPem('web1.pem'));
  const lookup = (id: string) => (id === 'web1' ? { sessionKey: req.session_key_used as string, tok } : undefined);
  const frame = lastFrame(req);
  const load = (decode(frame) as { load: Buffer }).load;

  it('aes request: flipped ciphertext / HMAC bits are BAD_HMAC', () => {
    for (const at of [17, load.length - 1]) {
      expect(codeOf(() => C.openAesRequest(withField(frame, 'load', flip(load, at)), lookup), CryptoError)).toBe('BAD_HMAC');
    }
  });

  it('aes request: unknown minion, wrong tok, id mismatch', () => {
    expect(codeOf(() => C.openAesRequest(withField(frame, 'id', 'db9'), lookup), CryptoError)).toBe('NO_SESSION');
    const wrongTok = () => ({ sessionKey: req.session_key_used as string, tok: C.makeTok(keyPem('db1.pem')) });
    expect(codeOf(() => C.openAesRequest(frame, wrongTok), CryptoError)).toBe('BAD_TOK');
    const mismatch = (id: string) => (id === 'db1' ? lookup('web1') : undefined);
    expect(codeOf(() => C.openAesRequest(withField(frame, 'id', 'db1'), mismatch), ProtocolError)).toBe('BAD_LOAD');
  });

  it('aes request: garbage frames', () => {
    expect(codeOf(() => C.openAesRequest(frame.subarray(0, 40), lookup), ProtocolError)).toMatch(/^MSGPACK_/);
    expect(codeOf(() => C.openAesRequest(withField(frame, 'version', 'three'), lookup), ProtocolError)).toBe('BAD_LOAD');
    expect(codeOf(() => C.openAesRequest(C.buildClearRequest({ cmd: 'x' }), lookup), ProtocolError)).toBe('BAD_LOAD');
  });

  it('aes reply: wrong nonce, flipped bit, not a raw string', () => {
    const rep = messages.find((m) => m.kind === 'aes-reply:_return' && m.session_key_used)!;
    const bytes = lastFrame(rep);
    expect(codeOf(() => C.openAesReply(bytes, rep.session_key_used, 'f'.repeat(32)), CryptoError)).toBe('BAD_NONCE');
    const raw = decode(bytes) as Buffer;
    expect(codeOf(() => C.openAesReply(encode(flip(raw, 30)), rep.session_key_used, rep.reply_nonce), CryptoError)).toBe('BAD_HMAC');
    expect(codeOf(() => C.openAesReply(encode(raw.subarray(0, 50)), rep.session_key_used, rep.reply_nonce), CryptoError)).toBe('TRUNCATED');
    expect(codeOf(() => C.openAesReply(encode({ a: 1 }), rep.session_key_used, rep.reply_nonce), ProtocolError)).toBe('BAD_LOAD');
  });

  it('auth reply: flipped signature, wrong nonce, wrong master key', () => {
    // auth.json's accepted_with_token case is web1's sign-in.
    const pair = messages.find((m) => m.source === 'auth.json:accepted_with_token/reply')!;
    const id = 'web1';
    expect(C.openAuthReply(lastFrame(pair), masterPub, keyPem('web1.pem'), pair.load.nonce).kind).toBe('accepted');
    const bytes = lastFrame(pair);
    const env = decode(bytes) as { load: Buffer; sig: Buffer };
    const nonce = pair.load.nonce as string;
    const minion = keyPem(`${id}.pem`);
    expect(codeOf(() => C.openAuthReply(withField(bytes, 'sig', flip(env.sig, 3)), masterPub, minion, nonce), CryptoError)).toBe(
      'BAD_SIGNATURE',
    );
    expect(codeOf(() => C.openAuthReply(withField(bytes, 'load', flip(env.load, 60)), masterPub, minion, nonce), CryptoError)).toBe(
      'BAD_SIGNATURE',
    );
    expect(codeOf(() => C.openAuthReply(bytes, masterPub, minion, '0'.repeat(32)), CryptoError)).toBe('BAD_NONCE');
    expect(codeOf(() => C.openAuthReply(bytes, keyPem('db1.pub'), minion, nonce), CryptoError)).toBe('BAD_SIGNATURE');
  });

  it('auth reply: an accepted load whose X9.31 sig is for another AES key', () => {
    const nonce = C.newNonce();
    const bytes = C.buildAuthReply(masterPem, {
      kind: 'accepted',
      nonce,
      minionPublicKey: keyPem('web1.pub'),
      publishPort: 4505,
      aesKey: 'A'.repeat(76),
      sessionKey: 'B'.repeat(76),
      aesSig: C.makeAesSig(masterPem, 'C'.repeat(76)),
    });
    expect(codeOf(() => C.openAuthReply(bytes, masterPub, keyPem('web1.pem'), nonce), CryptoError)).toBe('BAD_SIGNATURE');
  });

  it('send_private: another minion cannot open it; a wrong nonce is refused', () => {
    const nonce = C.newNonce();
    const bytes = C.buildSendPrivateReply(masterPem, keyPem('web1.pub'), nonce, { a: 1 });
    expect(codeOf(() => C.openSendPrivateReply(bytes, keyPem('db1.pem'), masterPub, nonce), CryptoError)).toBe('DECRYPT_FAILED');
    expect(codeOf(() => C.openSendPrivateReply(bytes, keyPem('web1.pem'), masterPub, C.newNonce()), CryptoError)).toBe('BAD_NONCE');
    expect(codeOf(() => C.openSendPrivateReply(bytes, keyPem('web1.pem'), keyPem('db1.pub'), nonce), CryptoError)).toBe('BAD_SIGNATURE');
  });

  it('builders refuse malformed nonces', () => {
    expect(codeOf(() => C.buildAesReply('A'.repeat(76), 'nope', 1), ProtocolError)).toBe('BAD_LOAD');
    expect(codeOf(() => C.buildAuthReply(masterPem, { kind: 'pending', nonce: 'x' }), ProtocolError)).toBe('BAD_LOAD');
  });
});
