import { describe, expect, it } from 'vitest';
import * as C from '../../../src/core/channel';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { constants, verify } from 'node:crypto';
import { decode, encode } from '../../../src/core/protocol/msgpack';
import {
  WireViolation,
  checkAesReply,
  checkAesRequest,
  checkAuthReply,
  checkPublication,
  checkSendPrivateReply,
  field,
  keysOf,
  readMsgpack,
  textField,
} from '../../support/wire-checker';
import { allMessages, keyPem, lastFrame } from '../protocol/wire-vectors';

const masterPem = keyPem('master.pem');
const masterPub = keyPem('master.pub');
const web1Pem = keyPem('web1.pem');
const web1Pub = keyPem('web1.pub');

describe('the independent checker agrees with the captures (so it is a fair judge)', () => {
  it('accepts captured publications, aes replies and auth replies', () => {
    const msgs = allMessages();
    const pub = msgs.find((m) => m.kind === 'publish')!;
    expect(keysOf(checkPublication(lastFrame(pub), pub.aes_key_used, masterPub))).toContain('fun');
    const rep = msgs.find((m) => m.kind === 'aes-reply:_return' && m.session_key_used)!;
    expect(checkAesReply(lastFrame(rep), rep.session_key_used, rep.reply_nonce)).toBeNull();
    const req = msgs.find((m) => m.kind === 'aes-request:_return' && m.outer.id === 'web1')!;
    expect(textField(checkAesRequest(lastFrame(req), req.session_key_used, web1Pub), 'cmd')).toBe('_return');
  });

  it('rejects str8, which Salt never sends', () => {
    expect(() => readMsgpack(Buffer.from('d903616263', 'hex'))).toThrow(WireViolation);
  });
});

describe('brine-built messages pass the independent checker', () => {
  const aesKey = Crypticle.generateKeyString();
  const sessionKey = Crypticle.generateKeyString();
  const nonce = C.newNonce();

  it('_auth reply: pending and rejected', () => {
    expect(checkAuthReply(C.buildAuthReply(masterPem, { kind: 'pending', nonce }), masterPub, web1Pem, nonce)).toEqual({ kind: 'pending' });
    expect(checkAuthReply(C.buildAuthReply(masterPem, { kind: 'rejected', nonce }), masterPub, web1Pem, nonce)).toEqual({
      kind: 'rejected',
    });
  });

  it('_auth reply: accepted, with and without token, with a precomputed aes sig', () => {
    const aesSig = C.makeAesSig(masterPem, aesKey);
    for (const token of [undefined, Crypticle.generateKeyString()]) {
      const bytes = C.buildAuthReply(masterPem, {
        kind: 'accepted',
        nonce,
        minionPublicKey: web1Pub,
        publishPort: 4505,
        aesKey,
        sessionKey,
        token,
        aesSig,
      });
      expect(checkAuthReply(bytes, masterPub, web1Pem, nonce)).toEqual({
        kind: 'accepted',
        aes: aesKey,
        session: sessionKey,
        port: 4505,
        ...(token ? { token } : {}),
      });
      const opened = C.openAuthReply(bytes, masterPub, web1Pem, nonce);
      expect(opened).toMatchObject({ kind: 'accepted', aesKey, sessionKey, publishPort: 4505 });
      // First contact (no cached master key): trusted on first use via the carried pub_key.
      expect(C.openAuthReply(bytes, null, web1Pem, nonce)).toMatchObject({ kind: 'accepted', masterPublicPem: masterPub.trim() });
    }
  });

  it('publication', () => {
    const job = { fun: 'test.ping', arg: [], tgt: '*', jid: '20261202125622684790', ret: '', tgt_type: 'glob', user: 'root', serial: 7 };
    const bytes = C.buildPublication(aesKey, masterPem, job);
    const checked = checkPublication(bytes, aesKey, masterPub);
    expect(keysOf(checked)).toEqual(Object.keys(job));
    expect(field(checked, 'serial')).toBe(7);
    expect(C.openPublication(bytes, aesKey, masterPub)).toEqual(job);
  });

  it('publication signed with PKCS1v15-SHA224 (publish_signing_algorithm), which a minion checks by its sig_algo', () => {
    const job = { fun: 'test.ping', arg: [], tgt: '*', jid: '20261202125622684790', ret: '', tgt_type: 'glob', user: 'root' };
    const bytes = C.buildPublication(aesKey, masterPem, job, 'PKCS1v15-SHA224');
    const env = decode(bytes) as { sig_algo: string; sig: Buffer; load: Buffer };
    expect(env.sig_algo).toBe('PKCS1v15-SHA224');
    expect(verify('sha224', env.load, { key: masterPub, padding: constants.RSA_PKCS1_PADDING }, env.sig)).toBe(true);
    expect(C.openPublication(bytes, aesKey, masterPub)).toEqual(job);
    // The SHA-1 signature under the SHA-224 name does not verify.
    const relabelled = encode({ ...env, sig_algo: 'PKCS1v15-SHA1' });
    expect(() => C.openPublication(relabelled, aesKey, masterPub)).toThrow(/does not verify/);
    expect(() => C.openPublication(encode({ ...env, sig_algo: 'PKCS1v15-SHA256' }), aesKey, masterPub)).toThrow(
      /unsupported sig_algo "PKCS1v15-SHA256"/,
    );
  });

  it('publication without a signature (sign_pub_messages: False on the master)', () => {
    const job = { fun: 'test.ping', arg: [], tgt: '*', jid: '20261202125622684790', ret: '', tgt_type: 'glob', user: 'root' };
    const unsigned = C.buildPublication(aesKey, null, job);
    expect(Object.keys(decode(unsigned) as object)).toEqual(['enc', 'load']);
    // A minion that does not ask for the signature opens it, and a signed one alike; one that asks refuses it.
    expect(C.openPublication(unsigned, aesKey, null)).toEqual(job);
    expect(C.openPublication(C.buildPublication(aesKey, masterPem, job), aesKey, null)).toEqual(job);
    expect(() => C.openPublication(unsigned, aesKey, masterPub)).toThrow(/no signature: set sign_pub_messages: True in the master config/);
  });

  it('aes reply', () => {
    const bytes = C.buildAesReply(sessionKey, nonce, { ok: true, text: 'hi' });
    const checked = checkAesReply(bytes, sessionKey, nonce);
    expect(field(checked, 'ok')).toBe(true);
    expect(textField(checked, 'text')).toBe('hi');
    expect(C.openAesReply(bytes, sessionKey, nonce)).toEqual({ ok: true, text: 'hi' });
    expect(checkAesReply(C.buildAesReply(sessionKey, nonce, null), sessionKey, nonce)).toBeNull();
  });

  it('_return request', () => {
    const tok = C.makeTok(web1Pem);
    const load = {
      cmd: '_return',
      id: 'web1',
      success: true,
      return: true,
      retcode: 0,
      jid: '20261202125622684790',
      fun: 'test.ping',
      fun_args: [],
      user: 'root',
      _stamp: '2026-12-02T12:56:23.517087',
    };
    const { bytes, nonce: sent } = C.buildAesRequest({ id: 'web1', sessionKey, load, tok });
    const checked = checkAesRequest(bytes, sessionKey, web1Pub);
    expect(keysOf(checked)).toEqual([...Object.keys(load), 'nonce', 'ts', 'tok']);
    expect(textField(checked, 'nonce')).toBe(sent);
    const opened = C.openAesRequest(bytes, (id) => (id === 'web1' ? { sessionKey, tok } : undefined));
    expect(opened.load).toMatchObject(load);
  });

  it('send_private reply', () => {
    const pillar = { role: 'test', numbers: [1, 2], nested: { key: 'value' } };
    const bytes = C.buildSendPrivateReply(masterPem, web1Pub, nonce, pillar);
    expect(checkSendPrivateReply(bytes, web1Pem, masterPub, nonce)).toBeTruthy();
    expect(C.openSendPrivateReply(bytes, web1Pem, masterPub, nonce)).toEqual(pillar);
  });

  it('_auth request with a token round-trips through openAuthRequest', () => {
    const token = Crypticle.generateKeyString();
    const { bytes, nonce: n } = C.buildAuthRequest({ id: 'web1', publicPem: web1Pub, masterPublicKey: masterPub, token });
    const opened = C.openAuthRequest(bytes, masterPem);
    expect(opened.request.nonce).toBe(n);
    expect(opened.request.pub).toBe(web1Pub.trim());
    expect(opened.token?.toString()).toBe(token);
    expect(keysOf(field(readMsgpack(bytes), 'load'))).toEqual(['cmd', 'id', 'nonce', 'enc_algo', 'sig_algo', 'token', 'pub']);
  });
});
