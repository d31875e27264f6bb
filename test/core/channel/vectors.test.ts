import { describe, expect, it } from 'vitest';
import * as C from '../../../src/core/channel';
import { oaepDecrypt, signPkcs1v15Sha1 } from '../../../src/core/crypto/rsa';
import { decode, encode, toBytes } from '../../../src/core/protocol/msgpack';
import { Json, MINION_KEYS, allMessages, fromJson, jsonBytes, lastFrame, wireJson } from '../protocol/wire-vectors';
import { minionOf, privateKey, publicPem, requestReplyPairs } from './channel-vectors';

const masterPub = publicPem('master');
const master = privateKey('master');
const messages = allMessages();
const pairs = requestReplyPairs();

describe('channel openers decrypt every captured message to the recorded plaintext', () => {
  it('aes requests: session key, tok and id all check out', () => {
    let n = 0;
    for (const m of messages.filter((x) => x.kind.startsWith('aes-request:') && x.zmq_frames_hex)) {
      const id = m.outer.id as string;
      const tok = C.makeTok(privateKey(id));
      const opened = C.openAesRequest(lastFrame(m), (who) => (who === id ? { sessionKey: m.session_key_used, tok } : undefined));
      expect(opened.load, m.source).toEqual(fromJson(m.decrypted));
      expect(opened.id).toBe(id);
      // tok is deterministic: ours equals the captured one byte for byte.
      expect(tok.equals(jsonBytes(m.decrypted.tok)), m.source).toBe(true);
      n++;
    }
    expect(n).toBeGreaterThan(60);
  });

  it('aes replies: decrypt with the session key and carry the request nonce', () => {
    let n = 0;
    for (const p of pairs.filter((x) => x.rep.kind.startsWith('aes-reply:') && x.rep.session_key_used)) {
      expect(p.req?.decrypted?.nonce ?? p.rep.reply_nonce, p.source).toBe(p.rep.reply_nonce);
      const value = C.openAesReply(lastFrame(p.rep), p.rep.session_key_used, p.rep.reply_nonce);
      expect(value, p.source).toEqual(fromJson(p.rep.decrypted));
      n++;
    }
    expect(n).toBeGreaterThan(60);
  });

  it("our reply to a _return is Salt's master's: same framing, same plaintext under the session key", () => {
    let n = 0;
    for (const p of pairs.filter((x) => x.rep.kind === 'aes-reply:_return' && x.rep.session_key_used)) {
      const key = p.rep.session_key_used as string;
      const theirs = lastFrame(p.rep);
      const ours = C.buildAesReply(key, p.rep.reply_nonce, null);
      // Raw string header (str16, as Salt's use_bin_type=False packs it) and length alike.
      expect(ours.length, p.source).toBe(theirs.length);
      expect(ours.subarray(0, 3).equals(theirs.subarray(0, 3)), p.source).toBe(true);
      // The IV is random; what a Salt minion reads, `pickle::` + the nonce + msgpack nil, is the same.
      const plain = (bytes: Buffer) => C.crypticleFor(key).decrypt(toBytes(decode(bytes) as Buffer));
      expect(plain(ours).equals(plain(theirs)), p.source).toBe(true);
      expect(C.openAesReply(ours, key, p.rep.reply_nonce)).toBeNull();
      n++;
    }
    expect(n).toBeGreaterThan(3);
  });

  it('the plain "bad load" reply is BAD_LOAD_REPLY and opens as MASTER_BAD_LOAD', () => {
    const bad = messages.filter((m) => m.plain_string_reply === 'bad load');
    expect(bad.length).toBeGreaterThan(0);
    for (const m of bad) {
      expect(lastFrame(m).equals(C.BAD_LOAD_REPLY)).toBe(true);
      expect(() => C.openAesReply(lastFrame(m), 'x', 'a'.repeat(32))).toThrow(expect.objectContaining({ code: 'MASTER_BAD_LOAD' }));
    }
  });

  it('send_private (_pillar) replies: key, signature, key echo and nonce', () => {
    let n = 0;
    for (const p of pairs.filter((x) => x.rep.kind === 'aes-reply:_pillar')) {
      // Some s1 pillar requests are omitted stubs: then the one minion key that opens `key` tells.
      const reply = decode(lastFrame(p.rep)) as { key: Buffer; pillar: Buffer };
      const id =
        minionOf(p) ??
        MINION_KEYS.find((k) => {
          try {
            oaepDecrypt(privateKey(k), reply.key);
            return true;
          } catch {
            return false;
          }
        })!;
      const nonce = p.rep.decrypted_pillar.data.nonce as string;
      if (p.req?.decrypted) expect(nonce, p.source).toBe(p.req.decrypted.nonce);
      const pillar = C.openSendPrivateReply(lastFrame(p.rep), privateKey(id), masterPub, nonce);
      expect(pillar, p.source).toEqual(fromJson(p.rep.decrypted_pillar.data.pillar));
      // The PKCS#1 v1.5 signature over the captured data bytes is reproduced exactly.
      const signed = decode(C.crypticleFor(p.rep.private_key_string).decrypt(reply.pillar).subarray(8)) as { data: Buffer; sig: Buffer };
      expect(signPkcs1v15Sha1(master, signed.data).equals(signed.sig), p.source).toBe(true);
      n++;
    }
    expect(n).toBeGreaterThanOrEqual(9);
  });

  it('_auth replies: signature, OAEP fields, X9.31 sig over the AES key and nonce', () => {
    let accepted = 0;
    let other = 0;
    for (const p of pairs.filter((x) => x.rep.kind === 'auth-reply')) {
      const id = minionOf(p)!;
      const nonce = p.req!.load.nonce as string;
      const opened = C.openAuthReply(lastFrame(p.rep), masterPub, privateKey(id), nonce);
      const env = decode(lastFrame(p.rep)) as { load: Buffer; sig: Buffer };
      // Re-signing the captured inner load bytes gives the captured sig byte for byte.
      expect(signPkcs1v15Sha1(master, env.load).equals(env.sig), p.source).toBe(true);
      if (opened.kind === 'accepted') {
        const f = p.rep.decrypted_fields;
        expect(opened.aesKey).toBe(f.aes);
        expect(opened.sessionKey).toBe(f.session);
        expect(opened.token?.toString()).toBe(f.token);
        expect(opened.publishPort).toBe(4505);
        expect(opened.masterPublicPem).toBe(masterPub.trim());
        const inner = decode(env.load) as { sig: Buffer };
        expect(C.makeAesSig(master, opened.aesKey).equals(inner.sig), p.source).toBe(true);
        accepted++;
      } else {
        expect(opened.kind).toBe(p.rep.load.ret ? 'pending' : 'rejected');
        expect(opened).toEqual({ kind: opened.kind, verified: true });
        // Pending and rejected replies are deterministic: our builder reproduces the frame exactly.
        const rebuilt = C.buildAuthReply(master, { kind: opened.kind as 'pending' | 'rejected', nonce });
        expect(rebuilt.equals(lastFrame(p.rep)), p.source).toBe(true);
        other++;
      }
    }
    expect(accepted).toBeGreaterThan(5);
    expect(other).toBeGreaterThan(3);
  });

  it('_auth requests: the token decrypts with the master key; tokenless requests are rebuilt exactly', () => {
    let rebuilt = 0;
    for (const m of messages.filter((x) => x.kind === 'clear-request:_auth')) {
      const opened = C.openAuthRequest(lastFrame(m), master);
      expect(opened.request.id).toBe(m.load.id);
      if (m.load.token !== undefined) {
        expect(opened.token?.toString(), m.source).toBe(m.token_decrypted_with_master_key);
      } else {
        const again = C.buildAuthRequest({ id: m.load.id, publicPem: publicPem(m.load.id), nonce: m.load.nonce });
        expect(again.bytes.equals(lastFrame(m)), m.source).toBe(true);
        rebuilt++;
      }
    }
    expect(rebuilt).toBeGreaterThan(2);
  });

  it('publications: signature verified, load decrypted; re-signing the captured load gives its sig', () => {
    let n = 0;
    for (const m of messages.filter((x) => x.kind === 'publish')) {
      const job = C.openPublication(lastFrame(m), m.aes_key_used, masterPub);
      expect(job, m.source).toEqual(fromJson(m.decrypted));
      const env = decode(lastFrame(m)) as { load: Buffer; sig: Buffer };
      expect(signPkcs1v15Sha1(master, env.load).equals(env.sig), m.source).toBe(true);
      n++;
    }
    expect(n).toBeGreaterThan(50);
  });

  it('clear requests (the CLI publish) are rebuilt byte for byte', () => {
    let n = 0;
    for (const m of messages.filter((x) => x.kind === 'clear-request:publish')) {
      expect(C.buildClearRequest(fromJson(m.load) as Record<string, unknown>).equals(lastFrame(m)), m.source).toBe(true);
      n++;
    }
    expect(n).toBeGreaterThan(20);
  });
});

describe('the keys used are the ones crypto.json recovered', () => {
  it('every aes_key_used / session_key_used is a recovered key of its session and minion', () => {
    const rec = wireJson('crypto.json').recovered_symmetric_keys;
    const sessionName = (s: string) => (s === 's1' ? 'session1' : 'session2');
    let n = 0;
    for (const m of messages) {
      const r = rec[sessionName(m.session)];
      if (m.aes_key_used) {
        expect(r.aes_keys, m.source).toContain(m.aes_key_used);
        n++;
      }
      if (m.session_key_used) {
        const all = Object.values(r.session_keys as Record<string, string[]>).flat();
        expect(all, m.source).toContain(m.session_key_used);
        n++;
      }
    }
    expect(n).toBeGreaterThan(150);
  });

  it("crypto.json's Crypticle messages open through the channel", () => {
    const byLabel = new Map<string, Json>(wireJson('crypto.json').crypticle.map((v: Json) => [v.label, v]));
    const reply = byLabel.get('aes reply (session key, 32-char nonce after prefix)');
    const value = C.openAesReply(encode(Buffer.from(reply.message_hex, 'hex')), reply.key_string, reply.nonce);
    expect(value).toEqual(fromJson(reply.decoded));
    const req = byLabel.get('aes request load (minion session key)');
    const decoded = fromJson(req.decoded) as { id: string; tok: Buffer };
    const frame = encode({
      enc: 'aes',
      load: Buffer.from(req.message_hex, 'hex'),
      version: 3,
      id: decoded.id,
      enc_algo: 'OAEP-SHA1',
      sig_algo: 'PKCS1v15-SHA1',
    });
    expect(C.openAesRequest(frame, () => ({ sessionKey: req.key_string, tok: C.makeTok(privateKey(decoded.id)) })).load).toEqual(decoded);
  });
});
