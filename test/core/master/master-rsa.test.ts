import { describe, expect, it } from 'vitest';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { makeAesSig, newNonce, openAuthReply, openAuthRequest, openSendPrivateReply } from '../../../src/core/channel';
import { constants, verify } from 'node:crypto';
import { oaepDecrypt, oaepEncrypt, privateKeyFromPem, publicKeyFromPem } from '../../../src/core/crypto/rsa';
import { decode } from '../../../src/core/protocol/msgpack';
import { inlineKeyOps, masterRsa, threadPoolKeyOps, type MasterKeyOps } from '../../../src/core/master/master-rsa';
import { keyPem, wireJson } from '../protocol/wire-vectors';

const masterPem = keyPem('master.pem');
const masterPub = keyPem('master.pub');
const masterKey = privateKeyFromPem(masterPem);
const AES_KEY = Crypticle.generateKeyString();

function frame(msg: { zmq_frames_hex: string[] }): Buffer {
  return Buffer.from(msg.zmq_frames_hex[msg.zmq_frames_hex.length - 1], 'hex');
}

function authCase(label: string) {
  return wireJson('auth.json').cases.find((c: { label: string }) => c.label === label);
}

const variants: Array<[string, () => Promise<MasterKeyOps>]> = [
  ['on libuv’s thread pool', () => threadPoolKeyOps(masterKey, 2)],
  ['inline', async () => inlineKeyOps(masterKey)],
];

describe.each(variants)('master RSA jobs, %s', (_name, makeOps) => {
  it('builds pending and rejected replies equal to the captured bytes', async () => {
    const rsa = masterRsa(await makeOps());
    for (const [label, kind] of [
      ['first_contact_pending', 'pending'],
      ['rejected', 'rejected'],
    ] as const) {
      const c = authCase(label);
      const { request } = openAuthRequest(frame(c.request));
      const { reply } = await rsa.run({ op: 'authReply', kind, nonce: request.nonce });
      expect(reply.equals(frame(c.reply))).toBe(true);
    }
  });

  it('decrypts the captured token and hands an accepted minion keys it can open', async () => {
    const rsa = masterRsa(await makeOps());
    const c = authCase('accepted_with_token');
    const { request } = openAuthRequest(frame(c.request));
    const minion = request.id as string;
    const aesKey = Crypticle.generateKeyString();
    const sessionKey = Crypticle.generateKeyString();
    const { reply, tokenUnreadable } = await rsa.run({
      op: 'authReply',
      kind: 'accepted',
      nonce: request.nonce,
      minionPublicPem: request.pub,
      publishPort: 4505,
      aesKey,
      aesSig: makeAesSig(masterPem, aesKey),
      sessionKey,
      encryptedToken: request.token,
      masterPublicPem: masterPub,
    });
    expect(tokenUnreadable).toBeUndefined();
    const opened = openAuthReply(reply, masterPub, keyPem(`${minion}.pem`), request.nonce);
    expect(opened).toMatchObject({ kind: 'accepted', aesKey, sessionKey, publishPort: 4505 });
    expect((opened as { token?: Buffer }).token?.toString('latin1')).toBe(c.request.token_decrypted_with_master_key);
  });

  it('says when the token was made for another master key, and still answers', async () => {
    const rsa = masterRsa(await makeOps());
    const aesKey = Crypticle.generateKeyString();
    const nonce = newNonce();
    const job = {
      op: 'authReply',
      kind: 'accepted',
      nonce,
      minionPublicPem: keyPem('web2.pub'),
      publishPort: 4505,
      aesKey,
      aesSig: makeAesSig(masterPem, aesKey),
      sessionKey: Crypticle.generateKeyString(),
      masterPublicPem: masterPub,
    } as const;
    // A ciphertext of the right size for another key, and one of the wrong size.
    for (const encryptedToken of [oaepEncrypt(publicKeyFromPem(keyPem('web2.pub')), Buffer.from('tok')), Buffer.alloc(100, 7)]) {
      const result = await rsa.run({ ...job, encryptedToken });
      expect(result.tokenUnreadable).toBe(true);
      expect(openAuthReply(result.reply, masterPub, keyPem('web2.pem'), nonce)).toMatchObject({ kind: 'accepted', aesKey });
    }
  });

  it('builds send_private replies the minion opens with its key', async () => {
    const rsa = masterRsa(await makeOps());
    const nonce = newNonce();
    const { reply } = await rsa.run({ op: 'sendPrivate', minionPublicPem: keyPem('db1.pub'), nonce, pillar: { role: 'db' } });
    expect(openSendPrivateReply(reply, keyPem('db1.pem'), masterPub, nonce)).toEqual({ role: 'db' });
  });

  it('answers many concurrent jobs, each with its own nonce and token', async () => {
    const ops = await makeOps();
    const rsa = masterRsa(ops);
    const nonces = Array.from({ length: 30 }, () => newNonce());
    const replies = await Promise.all(nonces.map((nonce) => rsa.run({ op: 'authReply', kind: 'pending', nonce })));
    replies.forEach(({ reply }, i) =>
      expect(openAuthReply(reply, masterPub, keyPem('web1.pem'), nonces[i])).toEqual({ kind: 'pending', verified: true }),
    );
    // Decryptions in parallel take the key's copies in turn; each still gets its own plaintext.
    const plain = Array.from({ length: 12 }, (_, i) => Buffer.from(`token ${i}`));
    const opened = await Promise.all(plain.map((p) => ops.decrypt(oaepEncrypt(publicKeyFromPem(masterPub), p), 'sha1')));
    expect(opened.map((b) => b.toString())).toEqual(plain.map((b) => b.toString()));
  });

  it("answers in the hashes a minion's request names (encryption_algorithm / signing_algorithm SHA-224)", async () => {
    const ops = await makeOps();
    const rsa = masterRsa(ops);
    const nonce = newNonce();
    const token = oaepEncrypt(publicKeyFromPem(masterPub), Buffer.from('the token'), 'sha224');
    const { reply } = await rsa.run({
      op: 'authReply',
      kind: 'accepted',
      nonce,
      minionPublicPem: keyPem('web1.pub'),
      publishPort: 4505,
      aesKey: AES_KEY,
      aesSig: makeAesSig(masterKey, AES_KEY),
      sessionKey: AES_KEY,
      encryptedToken: token,
      masterPublicPem: masterPub,
      encHash: 'sha224',
      sigHash: 'sha224',
    });
    const env = decode(reply) as { load: Buffer; sig: Buffer };
    expect(verify('sha224', env.load, { key: masterPub, padding: constants.RSA_PKCS1_PADDING }, env.sig)).toBe(true);
    const inner = decode(env.load) as { token: Buffer; aes: Buffer };
    expect(oaepDecrypt(keyPem('web1.pem'), inner.token, 'sha224').toString()).toBe('the token');
    expect(oaepDecrypt(keyPem('web1.pem'), inner.aes, 'sha224').toString()).toBe(AES_KEY);
    expect(() => oaepDecrypt(keyPem('web1.pem'), inner.aes, 'sha1')).toThrow(/RSA-OAEP decryption failed/);
  });

  it('turns bad jobs and bad ciphertexts into typed errors', async () => {
    const ops = await makeOps();
    const rsa = masterRsa(ops);
    await expect(rsa.run({ op: 'authReply', kind: 'pending', nonce: 'not-a-nonce' })).rejects.toMatchObject({ code: 'BAD_LOAD' });
    await expect(rsa.run({ op: 'nope' } as never)).rejects.toMatchObject({ code: 'BAD_RSA_JOB' });
    await expect(ops.decrypt(Buffer.alloc(256, 1), 'sha1')).rejects.toMatchObject({ code: 'DECRYPT_FAILED' });
    await expect(ops.decrypt(Buffer.alloc(3), 'sha1')).rejects.toMatchObject({
      code: 'DECRYPT_FAILED',
      message: expect.stringMatching(/must be 256 bytes/),
    });
  });
});

describe('master RSA on libuv’s thread pool', () => {
  it('refuses a number of decryptions at once that is not a whole number >= 1', async () => {
    for (const parallel of [0, 1.5, Number.NaN]) {
      await expect(threadPoolKeyOps(masterKey, parallel)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    }
  });

  it('leaves the event loop free while the key works', async () => {
    // Inline, fifty signatures would all be made before the loop turns; on the thread pool an
    // immediate callback runs while most of them are still being made (each takes ~0.3 ms).
    const ops = await threadPoolKeyOps(masterKey, 2);
    let done = 0;
    const signing = Array.from({ length: 50 }, (_, i) => ops.sign(Buffer.from(`load ${i}`), 'sha1').then(() => done++));
    const doneAtFirstTurn = await new Promise<number>((resolve) => setImmediate(() => resolve(done)));
    await Promise.all(signing);
    expect(done).toBe(50);
    expect(doneAtFirstTurn).toBeLessThan(50);
  });
});
