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
import { oaepDecrypt, oaepDecrypterAsync, signPkcs1v15, signPkcs1v15Async } from '../crypto/rsa';
import { ENCRYPTION_ALGORITHMS, SIGNING_ALGORITHMS, encryptionHash, signingHash, type RsaHash } from '../crypto/rsa-algorithms';
import { ProtocolError } from '../errors';

/**
 * The hashes a minion asked for with its request's `enc_algo` and `sig_algo` (its
 * `encryption_algorithm` and `signing_algorithm`): OAEP to it, and the master's signature. SHA-1
 * for both when absent.
 */
export interface RequestedHashes {
  encHash?: RsaHash;
  sigHash?: RsaHash;
}

/**
 * The hashes a request's `enc_algo` and `sig_algo` name; ProtocolError BAD_LOAD for a name Salt
 * does not know (Salt's master cannot answer those either). `what` names the request.
 */
export function requestedHashes(encAlgo: unknown, sigAlgo: unknown, what: string): Required<RequestedHashes> {
  const encHash = encAlgo === undefined ? 'sha1' : encryptionHash(encAlgo);
  const sigHash = sigAlgo === undefined ? 'sha1' : signingHash(sigAlgo);
  if (encHash === undefined) {
    throw new ProtocolError(
      'BAD_LOAD',
      `${what}: enc_algo ${JSON.stringify(encAlgo)} is not one of ${Object.keys(ENCRYPTION_ALGORITHMS).join(', ')}`,
    );
  }
  if (sigHash === undefined) {
    throw new ProtocolError(
      'BAD_LOAD',
      `${what}: sig_algo ${JSON.stringify(sigAlgo)} is not one of ${Object.keys(SIGNING_ALGORITHMS).join(', ')}`,
    );
  }
  return { encHash, sigHash };
}

/** The sign-in reply for a minion that is not (or not yet) accepted. */
export interface ClearAuthReplyJob extends RequestedHashes {
  op: 'authReply';
  kind: 'pending' | 'rejected' | 'full';
  nonce: string;
}

/** The sign-in reply that hands an accepted minion the publish key and its session key. */
export interface AcceptedAuthReplyJob extends RequestedHashes {
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
  /** master_sign_pubkey's signature of the master key, for `pub_sig`. */
  pubSig?: Buffer | string;
}

export interface SendPrivateJob extends RequestedHashes {
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
  /** PKCS#1 v1.5 with `hash`. */
  sign(data: Buffer, hash: RsaHash): Promise<Buffer>;
  /** RSA-OAEP with `hash`; a ciphertext not made for this key rejects with DECRYPT_FAILED. */
  decrypt(data: Buffer, hash: RsaHash): Promise<Buffer>;
}

/** The operations on the calling thread (unit tests, benchmarks' comparison). */
export function inlineKeyOps(key: KeyObject): MasterKeyOps {
  return { key, sign: async (data, hash) => signPkcs1v15(key, data, hash), decrypt: async (data, hash) => oaepDecrypt(key, data, hash) };
}

/**
 * The operations on libuv's thread pool. `parallel`: how many decryptions may run at once (each
 * needs its own imported copy of the key; see oaepDecrypterAsync). Signing needs no copies.
 * WebCrypto's RSA-OAEP has no SHA-224: a token encrypted so (a minion's `encryption_algorithm:
 * OAEP-SHA224`) is decrypted on the calling thread.
 */
export async function threadPoolKeyOps(key: KeyObject, parallel: number): Promise<MasterKeyOps> {
  const decryptSha1 = await oaepDecrypterAsync(key, parallel);
  return {
    key,
    sign: (data, hash) => signPkcs1v15Async(key, data, hash),
    decrypt: async (data, hash) => (hash === 'sha1' ? decryptSha1(data) : oaepDecrypt(key, data, hash)),
  };
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
      const encHash = job.encHash ?? 'sha1';
      const sigHash = job.sigHash ?? 'sha1';
      if (job.kind !== 'accepted') {
        const load = authReplyLoad(ops.key, { kind: job.kind, nonce: job.nonce });
        return { reply: sealAuthReply(load, await ops.sign(load, sigHash)) };
      }
      let token: Buffer | undefined;
      let tokenUnreadable = false;
      if (job.encryptedToken !== undefined) {
        try {
          token = await ops.decrypt(job.encryptedToken, encHash);
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
        encHash,
        pubSig: job.pubSig,
      });
      const reply = sealAuthReply(load, await ops.sign(load, sigHash));
      return tokenUnreadable ? { reply, tokenUnreadable } : { reply };
    }
    case 'sendPrivate': {
      const parts = sendPrivateData(job.minionPublicPem, job.nonce, job.pillar, job.encHash);
      return { reply: sealSendPrivateReply(parts, await ops.sign(parts.data, job.sigHash ?? 'sha1')) };
    }
    default:
      throw new ProtocolError('BAD_RSA_JOB', `RSA job: unknown op ${JSON.stringify((job as { op?: unknown }).op)}`);
  }
}
