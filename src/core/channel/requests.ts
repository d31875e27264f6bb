/**
 * Request-port messages after sign-in: clear requests, aes requests (session-key Crypticle) and their
 * replies. Pure functions over the bytes of the last ZeroMQ frame.
 */
import { CryptoError, ProtocolError } from '../errors';
import { RsaKeyInput, privateKeyFromPem, x931Open, x931Sign } from '../crypto/rsa';
import type { RsaAlgorithms } from '../crypto/rsa-algorithms';
import { decode, encode, toBytes } from '../protocol/msgpack';
import { AesRequestLoad, Obj, isObj, parseAesRequestLoad, parseRequestEnvelope } from '../protocol/loads';
import type { AesRequestEnvelope } from '../protocol/envelopes';
import {
  ENC_ALGO,
  REQUEST_VERSION,
  SIG_ALGO,
  SymmetricKey,
  checkNonce,
  decodeFrame,
  isNonce,
  newNonce,
  openSealed,
  sameBytes,
  sealValue,
} from './common';

/** The master's answer to a request it cannot accept: the plain msgpack string "bad load". */
export const BAD_LOAD_REPLY: Buffer = encode('bad load');

const toks = new WeakMap<object, Buffer>();

/**
 * `tok`: X9.31 of `salt` with the minion key. Deterministic, so made once per loaded key (an RSA
 * private operation, about 1 ms: every channel a minion opens, and every minion of a simulator
 * sharing keys, would pay it again). PEM input is loaded through the PEM cache first.
 */
export function makeTok(minionPrivateKey: RsaKeyInput): Buffer {
  const key =
    typeof minionPrivateKey === 'string' || Buffer.isBuffer(minionPrivateKey) ? privateKeyFromPem(minionPrivateKey) : minionPrivateKey;
  let tok = toks.get(key);
  if (!tok) toks.set(key, (tok = x931Sign(key, Buffer.from('salt', 'latin1'))));
  return Buffer.from(tok); // callers own their copy
}

export { buildClearRequest } from './clear';

export interface AesRequestOptions {
  id: string;
  sessionKey: SymmetricKey;
  /** The command's load, e.g. `{cmd: '_return', id, ...}`; nonce, ts, tok and id are added. */
  load: Obj;
  tok: Buffer;
  nonce?: string;
  /** Seconds since the epoch; defaults to now. */
  ts?: number;
  /** The minion's `encryption_algorithm` and `signing_algorithm`, named in the envelope (Salt's defaults when omitted). */
  algorithms?: RsaAlgorithms;
}

export function buildAesRequest(opts: AesRequestOptions): { bytes: Buffer; nonce: string } {
  if (!isObj(opts.load)) throw new ProtocolError('BAD_LOAD', 'aes request: load must be a map');
  if (typeof opts.load.cmd !== 'string') throw new ProtocolError('BAD_LOAD', "aes request: load field 'cmd' must be a string");
  const nonce = opts.nonce ?? newNonce();
  if (!isNonce(nonce)) throw new ProtocolError('BAD_LOAD', 'aes request: nonce must be 32 hex characters');
  // Assignment keeps a field's place when the caller already set it (Salt's loads put `tok` early
  // for events), and appends it otherwise: nonce, ts, tok as the captures show.
  const load: Obj = { ...opts.load };
  if (load.id === undefined) load.id = opts.id;
  load.nonce = nonce;
  load.ts = opts.ts ?? Math.floor(Date.now() / 1000);
  load.tok = opts.tok;
  const bytes = encode({
    enc: 'aes',
    load: sealValue(opts.sessionKey, load),
    version: REQUEST_VERSION,
    id: opts.id,
    enc_algo: opts.algorithms?.enc ?? ENC_ALGO,
    sig_algo: opts.algorithms?.sig ?? SIG_ALGO,
  });
  return { bytes, nonce };
}

/** What the master knows about a minion with a live session. */
export interface SessionLookupResult {
  sessionKey: SymmetricKey;
  /**
   * The minion's `tok` as already verified once (bytes, or their latin1 text): then a byte
   * comparison is enough. Without it, `publicKey` must be given and the tok is opened with it
   * (X9.31) and must read `salt`.
   */
  tok?: Buffer | string;
  publicKey?: RsaKeyInput;
}
export type SessionLookup = (id: string) => SessionLookupResult | undefined;

export interface OpenedAesRequest {
  enc: 'aes';
  id: string;
  nonce: string;
  load: AesRequestLoad;
  /** The load's decrypted msgpack, for a signature over it (see message-signature.ts). */
  plain: Buffer;
}
export interface OpenedClearRequest {
  enc: 'clear';
  load: Obj;
}

/**
 * Open an aes request: the outer id must have a session, the load must decrypt (HMAC), its `id` must
 * equal the outer one and its `tok` the expected one. A failure here is what Salt answers with
 * `BAD_LOAD_REPLY`.
 */
export function openAesRequest(bytes: Buffer, lookup: SessionLookup): OpenedAesRequest {
  const opened = openRequest(bytes, lookup);
  if (opened.enc !== 'aes') throw new ProtocolError('BAD_LOAD', 'aes request: field \'enc\' is "clear"');
  return opened;
}

/** Whether `tok` is the X9.31 signature of `salt` by the key's owner. */
function tokSignedBy(publicKey: RsaKeyInput | undefined, tok: Buffer): boolean {
  if (publicKey === undefined) return false;
  try {
    return x931Open(publicKey, tok).toString('latin1') === 'salt';
  } catch {
    return false;
  }
}

/** Open any request frame: clear ones come back as their load, aes ones checked as in openAesRequest. */
export function openRequest(bytes: Buffer, lookup: SessionLookup): OpenedAesRequest | OpenedClearRequest {
  const env = parseRequestEnvelope(decodeFrame(bytes, 'request'));
  if (env.enc === 'clear') return { enc: 'clear', load: env.load };
  return openAesEnvelope(env, lookup);
}

/**
 * openAesRequest for an envelope already decoded (the master decodes each request once to route
 * it, and opens the aes ones from that, not from the bytes again).
 */
export function openAesEnvelope(env: AesRequestEnvelope, lookup: SessionLookup): OpenedAesRequest {
  const session = lookup(env.id);
  if (session === undefined) {
    throw new CryptoError('NO_SESSION', `aes request from '${env.id}', which has no session`, {
      hint: 'the minion must sign in (_auth) again',
    });
  }
  const plain = openSealed(session.sessionKey, env.load, 'aes request');
  const load = parseAesRequestLoad(decode(plain));
  if (load.id !== env.id) {
    throw new ProtocolError('BAD_LOAD', `aes request: load id '${load.id}' differs from envelope id '${env.id}'`);
  }
  const known = typeof session.tok === 'string' ? Buffer.from(session.tok, 'latin1') : session.tok;
  if (!(known ? sameBytes(load.tok, known) : tokSignedBy(session.publicKey, load.tok))) {
    throw new CryptoError('BAD_TOK', `aes request from '${env.id}': tok does not match the minion's key`);
  }
  return { enc: 'aes', id: env.id, nonce: load.nonce, load, plain };
}

/** Crypticle(session key) of `pickle::` + nonce + msgpack(result), as a msgpack raw string. */
export function buildAesReply(sessionKey: SymmetricKey, nonce: string, result: unknown): Buffer {
  if (!isNonce(nonce)) throw new ProtocolError('BAD_LOAD', 'aes reply: nonce must be 32 hex characters');
  return encode(sealValue(sessionKey, result, nonce));
}

/** Open an aes reply; the master's plain "bad load" answer is `ProtocolError('MASTER_BAD_LOAD')`. */
export function openAesReply(bytes: Buffer, sessionKey: SymmetricKey, nonce: string): unknown {
  const raw = decodeFrame(bytes, 'aes reply');
  if (raw === 'bad load') {
    throw new ProtocolError('MASTER_BAD_LOAD', 'the master refused the request ("bad load")', {
      hint: 'the minion key may have been deleted or the session expired: sign in again',
    });
  }
  if (typeof raw !== 'string' && !Buffer.isBuffer(raw)) {
    throw new ProtocolError('BAD_LOAD', 'aes reply: expected an encrypted raw string');
  }
  const body = openSealed(sessionKey, toBytes(raw), 'aes reply');
  if (body.length < 32) throw new ProtocolError('BAD_LOAD', 'aes reply: too short to hold the nonce');
  checkNonce(body.subarray(0, 32).toString('latin1'), nonce, 'aes reply');
  return decode(body.subarray(32));
}
