import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { Crypticle } from '../../../src/core/crypto/crypticle';
import { makeAesSig, newNonce, openAuthReply, openAuthRequest, openSendPrivateReply } from '../../../src/core/channel';
import { BrineError } from '../../../src/core/errors';
import { RsaPool, startRsaWorker, type RsaWorkerData } from '../../../src/core/master/rsa-pool';
import { keyPem, wireJson } from '../protocol/wire-vectors';

const masterPem = keyPem('master.pem');
const masterPub = keyPem('master.pub');

function frame(msg: { zmq_frames_hex: string[] }): Buffer {
  return Buffer.from(msg.zmq_frames_hex[msg.zmq_frames_hex.length - 1], 'hex');
}

function authCase(label: string) {
  return wireJson('auth.json').cases.find((c: { label: string }) => c.label === label);
}

let pool: RsaPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

describe('RsaPool: the master key once per worker, replies built off the main thread', () => {
  it('builds pending and rejected replies equal to the captured bytes', async () => {
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 2 });
    await pool.ready();
    for (const [label, kind] of [
      ['first_contact_pending', 'pending'],
      ['rejected', 'rejected'],
    ] as const) {
      const c = authCase(label);
      const { request } = openAuthRequest(frame(c.request));
      const { reply } = await pool.run({ op: 'authReply', kind, nonce: request.nonce });
      expect(reply.equals(frame(c.reply))).toBe(true);
    }
  });

  it('decrypts the captured token and hands an accepted minion keys it can open', async () => {
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 1 });
    const c = authCase('accepted_with_token');
    const { request } = openAuthRequest(frame(c.request));
    const minion = request.id as string;
    const aesKey = Crypticle.generateKeyString();
    const sessionKey = Crypticle.generateKeyString();
    const { reply, tokenUnreadable } = await pool.run({
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
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 1 });
    const aesKey = Crypticle.generateKeyString();
    const nonce = newNonce();
    const result = await pool.run({
      op: 'authReply',
      kind: 'accepted',
      nonce,
      minionPublicPem: keyPem('web2.pub'),
      publishPort: 4505,
      aesKey,
      aesSig: makeAesSig(masterPem, aesKey),
      sessionKey: Crypticle.generateKeyString(),
      encryptedToken: Buffer.alloc(256, 7),
      masterPublicPem: masterPub,
    });
    expect(result.tokenUnreadable).toBe(true);
    expect(openAuthReply(result.reply, masterPub, keyPem('web2.pem'), nonce)).toMatchObject({ kind: 'accepted', aesKey });
  });

  it('builds send_private replies the minion opens with its key', async () => {
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 2 });
    const nonce = newNonce();
    const { reply } = await pool.run({ op: 'sendPrivate', minionPublicPem: keyPem('db1.pub'), nonce, pillar: { role: 'db' } });
    expect(openSendPrivateReply(reply, keyPem('db1.pem'), masterPub, nonce)).toEqual({ role: 'db' });
  });

  it('answers many concurrent jobs, each with its own nonce', async () => {
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 3 });
    const nonces = Array.from({ length: 30 }, () => newNonce());
    const replies = await Promise.all(nonces.map((nonce) => pool!.run({ op: 'authReply', kind: 'pending', nonce })));
    replies.forEach(({ reply }, i) =>
      expect(openAuthReply(reply, masterPub, keyPem('web1.pem'), nonces[i])).toEqual({ kind: 'pending', verified: true }),
    );
  });

  it('turns bad jobs into typed errors', async () => {
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 1 });
    await expect(pool.run({ op: 'authReply', kind: 'pending', nonce: 'not-a-nonce' })).rejects.toMatchObject({ code: 'BAD_LOAD' });
    await expect(pool.run({ op: 'nope' } as never)).rejects.toMatchObject({ code: 'BAD_RSA_JOB' });
    expect(() => new RsaPool({ masterPrivatePem: masterPem }, { size: 0 })).toThrow(expect.objectContaining({ code: 'BAD_POOL_SIZE' }));
  });
});

describe('RsaPool: a worker that dies', () => {
  it('fails its job with RSA_WORKER_FAILED, is reported and replaced', async () => {
    const errors: BrineError[] = [];
    let started = 0;
    // The first worker loads, says ready, and then dies on its first job, as a crash would.
    const startWorker = (data: RsaWorkerData): Worker =>
      started++ === 0
        ? new Worker(
            `const { parentPort } = require('node:worker_threads');
             parentPort.postMessage({ ready: true });
             parentPort.on('message', () => process.exit(3));`,
            { eval: true, workerData: data },
          )
        : startRsaWorker(data);
    pool = new RsaPool({ masterPrivatePem: masterPem }, { size: 1, startWorker, onWorkerError: (e) => errors.push(e) });
    await pool.ready();
    await expect(pool.run({ op: 'authReply', kind: 'pending', nonce: newNonce() })).rejects.toMatchObject({ code: 'RSA_WORKER_FAILED' });
    expect(errors.map((e) => e.code)).toEqual(['RSA_WORKER_FAILED']);
    expect(errors[0].message).toMatch(/exit code 3/);
    const nonce = newNonce();
    const { reply } = await pool.run({ op: 'authReply', kind: 'pending', nonce });
    expect(openAuthReply(reply, masterPub, keyPem('web1.pem'), nonce)).toEqual({ kind: 'pending', verified: true });
    expect(started).toBe(2);
  });

  it('does not respawn forever when the key cannot be loaded: ready() rejects', async () => {
    const errors: BrineError[] = [];
    pool = new RsaPool({ masterPrivatePem: 'not a key' }, { size: 1, onWorkerError: (e) => errors.push(e) });
    await expect(pool.ready()).rejects.toMatchObject({ code: 'RSA_WORKER_FAILED' });
    await expect(pool.run({ op: 'authReply', kind: 'pending', nonce: newNonce() })).rejects.toMatchObject({ code: 'RSA_POOL_CLOSED' });
    expect(errors).toHaveLength(1);
  });
});
