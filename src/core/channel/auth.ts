/**
 * Salt's sign-in handshake (`_auth` on the request port) as pure functions.
 *
 * Request (clear): `{enc: 'clear', load: {cmd: '_auth', id, nonce, enc_algo, sig_algo, [token], pub},
 * version: 3}`. Reply: `{enc: 'clear', load: msgpack(inner), sig: PKCS1v15-SHA1(master, those bytes)}`
 * with inner pending `{ret: true, nonce}`, rejected `{ret: false, nonce}` or accepted
 * `{enc: 'pub', pub_key, publish_port, [pub_sig], [token], aes, session, sig, nonce}`.
 */
import { createHash } from 'node:crypto';
import { CryptoError, ProtocolError } from '../errors';
import { RsaKeyInput, oaepDecrypt, oaepEncrypt, publicPemOf, signPkcs1v15, verifyPkcs1v15, x931Open, x931Sign } from '../crypto/rsa';
import {
  DEFAULT_RSA_ALGORITHMS,
  ENCRYPTION_ALGORITHMS,
  SIGNING_ALGORITHMS,
  encryptionHash,
  type RsaAlgorithms,
  type RsaHash,
} from '../crypto/rsa-algorithms';
import { encode } from '../protocol/msgpack';
import {
  AuthAcceptedLoad,
  AuthRequest,
  parseAuthReplyEnvelope,
  parseAuthReplyLoad,
  parseAuthRequest,
  parseRequestEnvelope,
} from '../protocol/loads';
import { REQUEST_VERSION, checkNonce, decodeFrame, isNonce, keyStringFrom, newNonce } from './common';

/** PEM text as Salt puts it on the wire: surrounding whitespace stripped, `\n` line ends. */
export function wirePem(pem: string): string {
  return pem.replace(/\r\n/g, '\n').trim();
}

export interface AuthRequestOptions {
  id: string;
  /** The minion's public key (PEM). */
  publicPem: string;
  nonce?: string;
  /** The cached master key; with `token` the token is OAEP-encrypted to it. */
  masterPublicKey?: RsaKeyInput;
  /** The minion's random token string, echoed back by the master to prove it holds its key. */
  token?: string;
  /** Its `encryption_algorithm` and `signing_algorithm` (Salt's defaults when omitted). */
  algorithms?: RsaAlgorithms;
  /** The grains its `autosign_grains` names, with their values (Salt's minion_sign_in_payload). */
  autosignGrains?: Record<string, unknown>;
}

export function buildAuthRequest(opts: AuthRequestOptions): { bytes: Buffer; nonce: string } {
  const nonce = opts.nonce ?? newNonce();
  if (!isNonce(nonce)) throw new ProtocolError('BAD_LOAD', '_auth request: nonce must be 32 hex characters');
  const algorithms = opts.algorithms ?? DEFAULT_RSA_ALGORITHMS;
  const load: Record<string, unknown> = { cmd: '_auth', id: opts.id, nonce, enc_algo: algorithms.enc, sig_algo: algorithms.sig };
  if (opts.autosignGrains !== undefined) load.autosign_grains = opts.autosignGrains;
  if (opts.token !== undefined) {
    if (opts.masterPublicKey === undefined) {
      throw new ProtocolError('BAD_LOAD', '_auth request: a token needs the master public key to encrypt it to');
    }
    load.token = oaepEncrypt(opts.masterPublicKey, Buffer.from(opts.token, 'utf8'), ENCRYPTION_ALGORITHMS[algorithms.enc]);
  }
  load.pub = wirePem(opts.publicPem);
  return { bytes: encode({ enc: 'clear', load, version: REQUEST_VERSION }), nonce };
}

export interface OpenedAuthRequest {
  request: AuthRequest;
  /** The decrypted token, when the request carried one and a master key was given. */
  token?: Buffer;
}

/**
 * Parse an `_auth` request frame; with the master's private key, also decrypt its `token` by the
 * OAEP its `enc_algo` names.
 */
export function openAuthRequest(bytes: Buffer, masterPrivateKey?: RsaKeyInput): OpenedAuthRequest {
  const env = parseRequestEnvelope(decodeFrame(bytes, '_auth request'));
  if (env.enc !== 'clear') throw new ProtocolError('BAD_LOAD', '_auth request: field \'enc\' must be "clear"');
  const request = parseAuthRequest(env.load);
  if (request.token === undefined || masterPrivateKey === undefined) return { request };
  const hash = encryptionHash(request.enc_algo);
  if (hash === undefined) throw new ProtocolError('BAD_LOAD', `_auth request: unsupported enc_algo ${JSON.stringify(request.enc_algo)}`);
  return { request, token: oaepDecrypt(masterPrivateKey, request.token, hash) };
}

/** sha256 hex of the AES key string: what the X9.31 `sig` of an accepted reply signs. */
export function aesKeyDigest(aesKey: string): Buffer {
  return Buffer.from(createHash('sha256').update(aesKey, 'utf8').digest('hex'), 'latin1');
}

/**
 * `master_sign_pubkey`'s `pub_sig` of an accepted reply: base64 of the signing key's PKCS#1 v1.5
 * signature of the master key as `pub_key` carries it, and a newline (Salt's binascii.b2a_base64;
 * bytes, a raw string on the wire). The same for every minion asking with one `sig_algo`.
 */
export function makePubSig(signingKey: RsaKeyInput, masterPublicPem: string, hash: RsaHash): Buffer {
  return Buffer.from(`${signPkcs1v15(signingKey, Buffer.from(wirePem(masterPublicPem), 'utf8'), hash).toString('base64')}\n`, 'latin1');
}

/**
 * Salt's verify_pubkey_sig: whether `pubSig` (base64 text or bytes, as a reply carried it) is the
 * signing key's signature of the master key `pub_key` carried, by the minion's `sig_algo` hash.
 */
export function pubSigVerifies(signingPublicKey: RsaKeyInput, masterPublicPem: string, pubSig: unknown, hash: RsaHash): boolean {
  const text = Buffer.isBuffer(pubSig) ? pubSig.toString('latin1') : typeof pubSig === 'string' ? pubSig : '';
  const sig = Buffer.from(text, 'base64');
  return sig.length > 0 && verifyPkcs1v15(signingPublicKey, Buffer.from(masterPublicPem, 'utf8'), sig, hash);
}

/** The accepted reply's `sig`: the same for every minion while one AES key lives, so compute it once. */
export function makeAesSig(masterPrivateKey: RsaKeyInput, aesKey: string): Buffer {
  return x931Sign(masterPrivateKey, aesKeyDigest(aesKey));
}

export type AuthReplyOptions =
  | { kind: 'pending' | 'rejected' | 'full'; nonce: string }
  | {
      kind: 'accepted';
      nonce: string;
      minionPublicKey: RsaKeyInput;
      publishPort: number;
      aesKey: string;
      sessionKey: string;
      /** The minion's decrypted token, re-encrypted to it when present. */
      token?: Buffer | string;
      /** `makeAesSig(masterPrivateKey, aesKey)`, precomputed once per AES key. */
      aesSig?: Buffer;
      /** The master public key PEM; derived from the private key when omitted. */
      masterPublicPem?: string;
      /** OAEP's hash for the keys and token sent to the minion (its `enc_algo`); SHA-1 if omitted. */
      encHash?: RsaHash;
      /** `master_sign_pubkey`: the signing key's signature of `pub_key` (see master/pubkey-signature.ts). */
      pubSig?: Buffer | string;
    };

/** A sign-in reply, signed with `sigHash` (the request's `sig_algo`; SHA-1 by default). */
export function buildAuthReply(masterPrivateKey: RsaKeyInput, opts: AuthReplyOptions, sigHash: RsaHash = 'sha1'): Buffer {
  const load = authReplyLoad(masterPrivateKey, opts);
  return sealAuthReply(load, signPkcs1v15(masterPrivateKey, load, sigHash));
}

/**
 * The part of a sign-in reply the master signs: msgpack of the inner load. The private key is
 * used only for what `opts` leaves out (`aesSig`, `masterPublicPem`); the master's request path
 * gives both, and signs the load on libuv's thread pool (master-rsa.ts).
 */
export function authReplyLoad(masterPrivateKey: RsaKeyInput, opts: AuthReplyOptions): Buffer {
  if (!isNonce(opts.nonce)) throw new ProtocolError('BAD_LOAD', '_auth reply: nonce must be 32 hex characters');
  let inner: Record<string, unknown>;
  if (opts.kind !== 'accepted') {
    inner = { ret: opts.kind === 'pending' ? true : opts.kind === 'rejected' ? false : 'full', nonce: opts.nonce };
  } else {
    inner = {
      enc: 'pub',
      pub_key: wirePem(opts.masterPublicPem ?? publicPemOf(masterPrivateKey)),
      publish_port: opts.publishPort,
    };
    if (opts.pubSig !== undefined) inner.pub_sig = opts.pubSig;
    if (opts.token !== undefined) {
      const token = typeof opts.token === 'string' ? Buffer.from(opts.token, 'utf8') : opts.token;
      inner.token = oaepEncrypt(opts.minionPublicKey, token, opts.encHash);
    }
    inner.aes = oaepEncrypt(opts.minionPublicKey, Buffer.from(opts.aesKey, 'utf8'), opts.encHash);
    inner.session = oaepEncrypt(opts.minionPublicKey, Buffer.from(opts.sessionKey, 'utf8'), opts.encHash);
    inner.sig = opts.aesSig ?? makeAesSig(masterPrivateKey, opts.aesKey);
    inner.nonce = opts.nonce;
  }
  return encode(inner);
}

/** The sign-in reply frame: the load and the master's PKCS#1 v1.5 SHA-1 signature over it. */
export function sealAuthReply(load: Buffer, sig: Buffer): Buffer {
  return encode({ enc: 'clear', load, sig });
}

export type OpenedAuthReply =
  | { kind: 'pending' | 'rejected' | 'full'; verified: boolean }
  | {
      kind: 'accepted';
      aesKey: string;
      sessionKey: string;
      token?: Buffer;
      publishPort: number;
      /** The master public key the reply carried (what a first-contact minion caches). */
      masterPublicPem: string;
    };

/**
 * Open an `_auth` reply. `masterPublicKey` null means first contact (no cached master key): an
 * accepted reply is then checked against the key it carries (trust on first use) and a pending or
 * rejected one comes back with `verified: false`. `algorithms`: the ones the request named, which
 * the master answers in.
 */
export function openAuthReply(
  bytes: Buffer,
  masterPublicKey: RsaKeyInput | null,
  minionPrivateKey: RsaKeyInput,
  expectedNonce: string,
  algorithms: RsaAlgorithms = DEFAULT_RSA_ALGORITHMS,
): OpenedAuthReply {
  const encHash = ENCRYPTION_ALGORITHMS[algorithms.enc];
  const env = parseAuthReplyEnvelope(decodeFrame(bytes, '_auth reply'));
  const inner = parseAuthReplyLoad(decodeFrame(env.load, '_auth reply load'));
  const signer = masterPublicKey ?? ('enc' in inner ? (inner as AuthAcceptedLoad).pub_key : null);
  if (signer !== null && !verifyPkcs1v15(signer, env.load, env.sig, SIGNING_ALGORITHMS[algorithms.sig])) {
    throw new CryptoError('BAD_SIGNATURE', '_auth reply: the master signature over the load does not verify', {
      hint: 'the master key changed or the reply was tampered with',
    });
  }
  checkNonce(inner.nonce, expectedNonce, '_auth reply');
  if ('ret' in inner) {
    const kind = inner.ret === true ? 'pending' : inner.ret === false ? 'rejected' : 'full';
    return { kind, verified: signer !== null };
  }
  const accepted = inner as AuthAcceptedLoad;
  const aesKey = keyStringFrom(oaepDecrypt(minionPrivateKey, accepted.aes, encHash), '_auth reply aes');
  const sessionKey = keyStringFrom(oaepDecrypt(minionPrivateKey, accepted.session, encHash), '_auth reply session');
  let opened: Buffer;
  try {
    opened = x931Open(signer as RsaKeyInput, accepted.sig);
  } catch (cause) {
    throw new CryptoError('BAD_SIGNATURE', '_auth reply: the X9.31 sig over the AES key does not open', { cause });
  }
  if (!opened.equals(aesKeyDigest(aesKey))) {
    throw new CryptoError('BAD_SIGNATURE', '_auth reply: the X9.31 sig does not sign this AES key');
  }
  const out: OpenedAuthReply = {
    kind: 'accepted',
    aesKey,
    sessionKey,
    publishPort: accepted.publish_port,
    masterPublicPem: accepted.pub_key,
  };
  if (accepted.token !== undefined) out.token = oaepDecrypt(minionPrivateKey, accepted.token, encHash);
  return out;
}
