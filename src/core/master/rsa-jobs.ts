/**
 * The master's per-request RSA work, as plain data in and bytes out, so that it can run on a worker
 * thread: the `_auth` reply (token OAEP decrypt, PKCS#1 v1.5 signature) and the send_private reply
 * of `_pillar`. Everything here calls the pure channel builders; nothing holds state but the key.
 */
import type { KeyObject } from 'node:crypto';
import { buildAuthReply, buildSendPrivateReply } from '../channel';
import { oaepDecrypt } from '../crypto/rsa';
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
  /** X9.31 over the AES key: computed once per publish key on the main thread. */
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
   * refuse us; the main thread logs it.
   */
  tokenUnreadable?: boolean;
}

/** Runs one job with the master's private key. Throws typed errors for bad input. */
export function runRsaJob(masterKey: KeyObject, job: RsaJob): RsaJobResult {
  if (job === null || typeof job !== 'object') throw new ProtocolError('BAD_RSA_JOB', 'RSA job: expected an object');
  switch (job.op) {
    case 'authReply': {
      if (job.kind !== 'accepted') return { reply: buildAuthReply(masterKey, { kind: job.kind, nonce: job.nonce }) };
      let token: Buffer | undefined;
      let tokenUnreadable = false;
      if (job.encryptedToken !== undefined) {
        try {
          token = oaepDecrypt(masterKey, asBuffer(job.encryptedToken));
        } catch {
          tokenUnreadable = true;
        }
      }
      const reply = buildAuthReply(masterKey, {
        kind: 'accepted',
        nonce: job.nonce,
        minionPublicKey: job.minionPublicPem,
        publishPort: job.publishPort,
        aesKey: job.aesKey,
        aesSig: asBuffer(job.aesSig),
        sessionKey: job.sessionKey,
        token,
        masterPublicPem: job.masterPublicPem,
      });
      return tokenUnreadable ? { reply, tokenUnreadable } : { reply };
    }
    case 'sendPrivate':
      return { reply: buildSendPrivateReply(masterKey, job.minionPublicPem, job.nonce, job.pillar) };
    default:
      throw new ProtocolError('BAD_RSA_JOB', `RSA job: unknown op ${JSON.stringify((job as { op?: unknown }).op)}`);
  }
}

/** Buffers cross postMessage as plain Uint8Arrays; the channel wants Buffers. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
