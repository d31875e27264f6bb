/**
 * The master's per-request RSA: the `_auth` reply (the token's OAEP decrypt, the PKCS#1 v1.5
 * signature) and the send_private reply of `_pillar`. The jobs are plain data; each is built by the
 * pure channel builders, and its private-key operations go through {@link MasterKeyOps}: on libuv's
 * thread pool in the daemon (the event loop keeps serving publishes and returns meanwhile), inline
 * in unit tests.
 *
 * The thread pool replaced a pool of worker threads (one per core, each a V8 isolate holding the
 * key): about 10 MiB of resident memory each, two on this project's two-core machine, and every
 * job cloned to and from them. Here the main thread does the small parts (encoding, the public-key
 * OAEP encryption to the minion, 26 µs) and only the private-key operations leave it.
 */
import type { KeyObject } from 'node:crypto';
import { authReplyLoad, sealAuthReply, sealSendPrivateReply, sendPrivateData } from '../channel';
import { oaepDecrypt, oaepDecrypterAsync, signPkcs1v15Sha1, signPkcs1v15Sha1Async } from '../crypto/rsa';
import { ProtocolError } from '../errors';

/** The sign-in reply for a minion that is not (or not yet) accepted. */
export interface ClearAuthReplyJob {
  op: 'authReply';
  kind: 'pending' | 'rejected' | 'full';
  nonce: string;
}

/** The sign-in reply that hands an accepted minion the publish key and its session key. */
export interface AcceptedAuthReplyJob {
  op: 'authReply';
  kind: 'accepted';
  nonce: string;
  /** The minion's public key as it sent it (PEM). */
  minionPublicPem: string;
  publishPort: number;
  aesKey: string;
  /** X9.31 over the AES key: computed once per publish key. */
  aesSig: Buffer;
  sessionKey: string;
  /** The request's `token`, still encrypted to the master key. */
  encryptedToken?: Buffer;
  masterPublicPem: string;
}

export interface SendPrivateJob {
  op: 'sendPrivate';
  minionPublicPem: string;
  nonce: string;
  pillar: unknown;
}

export type RsaJob = ClearAuthReplyJob | AcceptedAuthReplyJob | SendPrivateJob;

export interface RsaJobResult {
  reply: Buffer;
  /**
   * The request carried a token this master key cannot open: the minion cached another master
   * key. The reply goes without a token (as in Salt) and the minion, checking our signature, will
   * refuse us; the caller logs it.
   */
  tokenUnreadable?: boolean;
}

/** The master's request path hands its RSA work to this (auth.ts, request-handler.ts). */
export interface MasterRsa {
  run(job: RsaJob): Promise<RsaJobResult>;
}

/** The master private key's two operations the requests need. */
export interface MasterKeyOps {
  key: KeyObject;
  /** PKCS#1 v1.5 with SHA-1. */
  sign(data: Buffer): Promise<Buffer>;
  /** RSA-OAEP with SHA-1; a ciphertext not made for this key rejects with DECRYPT_FAILED. */
  decrypt(data: Buffer): Promise<Buffer>;
}

/** The operations on the calling thread (unit tests, benchmarks' comparison). */
export function inlineKeyOps(key: KeyObject): MasterKeyOps {
  return { key, sign: async (data) => signPkcs1v15Sha1(key, data), decrypt: async (data) => oaepDecrypt(key, data) };
}

/**
 * The operations on libuv's thread pool. `parallel`: how many decryptions may run at once (each
 * needs its own imported copy of the key; see oaepDecrypterAsync). Signing needs no copies.
 */
export async function threadPoolKeyOps(key: KeyObject, parallel: number): Promise<MasterKeyOps> {
  const decrypt = await oaepDecrypterAsync(key, parallel);
  return { key, sign: (data) => signPkcs1v15Sha1Async(key, data), decrypt };
}

/** A MasterRsa that runs each job with `ops`. */
export function masterRsa(ops: MasterKeyOps): MasterRsa {
  return { run: (job) => runRsaJob(ops, job) };
}

/** Runs one job with the master's key. Rejects with typed errors for bad input. */
export async function runRsaJob(ops: MasterKeyOps, job: RsaJob): Promise<RsaJobResult> {
  if (job === null || typeof job !== 'object') throw new ProtocolError('BAD_RSA_JOB', 'RSA job: expected an object');
  switch (job.op) {
    case 'authReply': {
      if (job.kind !== 'accepted') {
        const load = authReplyLoad(ops.key, { kind: job.kind, nonce: job.nonce });
        return { reply: sealAuthReply(load, await ops.sign(load)) };
      }
      let token: Buffer | undefined;
      let tokenUnreadable = false;
      if (job.encryptedToken !== undefined) {
        try {
          token = await ops.decrypt(job.encryptedToken);
        } catch {
          tokenUnreadable = true;
        }
      }
      const load = authReplyLoad(ops.key, {
        kind: 'accepted',
        nonce: job.nonce,
        minionPublicKey: job.minionPublicPem,
        publishPort: job.publishPort,
        aesKey: job.aesKey,
        aesSig: job.aesSig,
        sessionKey: job.sessionKey,
        token,
        masterPublicPem: job.masterPublicPem,
      });
      const reply = sealAuthReply(load, await ops.sign(load));
      return tokenUnreadable ? { reply, tokenUnreadable } : { reply };
    }
    case 'sendPrivate': {
      const parts = sendPrivateData(job.minionPublicPem, job.nonce, job.pillar);
      return { reply: sealSendPrivateReply(parts, await ops.sign(parts.data)) };
    }
    default:
      throw new ProtocolError('BAD_RSA_JOB', `RSA job: unknown op ${JSON.stringify((job as { op?: unknown }).op)}`);
  }
}
