/**
 * Salt's send_private reply (used for `_pillar`): a fresh key K, sent OAEP-encrypted to the minion,
 * and `pillar` = Crypticle(K) of pickle:: + msgpack({data, sig}) where data = msgpack({key: <the
 * encrypted K bytes>, pillar, nonce}) and sig = PKCS1v15-SHA1(master, data).
 */
import { CryptoError, ProtocolError } from '../errors';
import { Crypticle } from '../crypto/crypticle';
import { RsaKeyInput, oaepDecrypt, oaepEncrypt, signPkcs1v15, verifyPkcs1v15 } from '../crypto/rsa';
import {
  DEFAULT_RSA_ALGORITHMS,
  ENCRYPTION_ALGORITHMS,
  SIGNING_ALGORITHMS,
  type RsaAlgorithms,
  type RsaHash,
} from '../crypto/rsa-algorithms';
import { decode, encode } from '../protocol/msgpack';
import { bytes as bytesField, nonce as nonceField, obj } from '../protocol/fields';
import { parseSendPrivateReply } from '../protocol/loads';
import { checkNonce, decodeFrame, isNonce, keyStringFrom, openSealed, sameBytes, sealValue } from './common';

/** A send_private reply in the hashes the request named (`enc_algo`, `sig_algo`; SHA-1 by default). */
export function buildSendPrivateReply(
  masterPrivateKey: RsaKeyInput,
  minionPublicKey: RsaKeyInput,
  nonce: string,
  pillar: unknown,
  hashes: { encHash?: RsaHash; sigHash?: RsaHash } = {},
): Buffer {
  const parts = sendPrivateData(minionPublicKey, nonce, pillar, hashes.encHash);
  return sealSendPrivateReply(parts, signPkcs1v15(masterPrivateKey, parts.data, hashes.sigHash ?? 'sha1'));
}

/** A send_private reply before the master signs `data` (the master signs it off the main thread). */
export interface SendPrivateParts {
  /** K, the fresh key `pillar` is sealed with. */
  keyString: string;
  /** K encrypted to the minion's key. */
  key: Buffer;
  /** msgpack({key, pillar, nonce}): what the master signs. */
  data: Buffer;
}

/** K and what the master signs; K goes to the minion by OAEP with `encHash` (its request's `enc_algo`). */
export function sendPrivateData(minionPublicKey: RsaKeyInput, nonce: string, pillar: unknown, encHash: RsaHash = 'sha1'): SendPrivateParts {
  if (!isNonce(nonce)) throw new ProtocolError('BAD_LOAD', 'send_private reply: nonce must be 32 hex characters');
  const keyString = Crypticle.generateKeyString();
  const key = oaepEncrypt(minionPublicKey, Buffer.from(keyString, 'latin1'), encHash);
  return { keyString, key, data: encode({ key, pillar, nonce }) };
}

/** The send_private reply frame, with the master's signature over `parts.data`. */
export function sealSendPrivateReply(parts: SendPrivateParts, sig: Buffer): Buffer {
  return encode({ key: parts.key, pillar: sealValue(parts.keyString, { data: parts.data, sig }) });
}

/**
 * Open a send_private reply: decrypt K, check the master's signature, the key echo and the nonce,
 * by the `algorithms` the request named.
 */
export function openSendPrivateReply(
  bytes: Buffer,
  minionPrivateKey: RsaKeyInput,
  masterPublicKey: RsaKeyInput,
  nonce: string,
  algorithms: RsaAlgorithms = DEFAULT_RSA_ALGORITHMS,
): unknown {
  const what = 'send_private reply';
  const reply = parseSendPrivateReply(decodeFrame(bytes, what));
  const keyString = keyStringFrom(oaepDecrypt(minionPrivateKey, reply.key, ENCRYPTION_ALGORITHMS[algorithms.enc]), what);
  const signed = obj(what, decode(openSealed(keyString, reply.pillar, what)));
  const data = bytesField(what, signed, 'data');
  const sig = bytesField(what, signed, 'sig');
  if (!verifyPkcs1v15(masterPublicKey, data, sig, SIGNING_ALGORITHMS[algorithms.sig])) {
    throw new CryptoError('BAD_SIGNATURE', `${what}: the master signature over the data does not verify`);
  }
  const inner = obj(`${what} data`, decode(data));
  if (!sameBytes(bytesField(`${what} data`, inner, 'key'), reply.key)) {
    throw new CryptoError('BAD_KEY', `${what}: the signed key differs from the one sent`);
  }
  checkNonce(nonceField(`${what} data`, inner), nonce, what);
  if (!('pillar' in inner)) throw new ProtocolError('BAD_LOAD', `${what} data: field 'pillar' is missing`);
  return inner.pillar;
}
