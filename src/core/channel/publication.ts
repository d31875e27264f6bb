/**
 * Job publications on the publish port: `{enc: 'aes', load: Crypticle(AES key) of pickle:: +
 * msgpack(job), sig_algo: 'PKCS1v15-SHA1', sig: PKCS1v15-SHA1(master, the encrypted load bytes)}`.
 * `sig_algo` and `sig` are there when the master signs (`sign_pub_messages`, Salt's wrap_payload in
 * salt/channel/server.py), and checked when the minion asks for them (its own `sign_pub_messages`,
 * _verify_master_signature in salt/channel/client.py).
 */
import { CryptoError, ProtocolError } from '../errors';
import { RsaKeyInput, signPkcs1v15, verifyPkcs1v15 } from '../crypto/rsa';
import { SIGNING_ALGORITHMS, signingHash, type SigningAlgorithm } from '../crypto/rsa-algorithms';
import { decode, encode } from '../protocol/msgpack';
import { JobLoad, Obj, isObj, parseJobLoad, parsePublicationEnvelope } from '../protocol/loads';
import { SIG_ALGO, SymmetricKey, decodeFrame, openSealed, sealValue } from './common';

/**
 * A publication of `job`, signed with `masterPrivateKey` by `algorithm` (the master's
 * `publish_signing_algorithm`), or unsigned if the key is null (`sign_pub_messages: False`).
 */
export function buildPublication(
  aesKey: SymmetricKey,
  masterPrivateKey: RsaKeyInput | null,
  job: JobLoad | Obj,
  algorithm: SigningAlgorithm = SIG_ALGO,
): Buffer {
  if (!isObj(job)) throw new ProtocolError('BAD_LOAD', 'publication: job must be a map');
  const load = sealValue(aesKey, job);
  if (masterPrivateKey === null) return encode({ enc: 'aes', load });
  return encode({ enc: 'aes', load, sig_algo: algorithm, sig: signPkcs1v15(masterPrivateKey, load, SIGNING_ALGORITHMS[algorithm]) });
}

/**
 * Verify the master's signature first (unless `masterPublicKey` is null: the minion's
 * `sign_pub_messages: False`, where a signature is not looked at, as Salt's minion), then
 * decrypt. A wrong AES key (after a rotation) is `CryptoError BAD_HMAC`: the minion answers it by
 * signing in again. An unsigned publication where one is asked for is `CryptoError NO_SIGNATURE`.
 */
export function openPublication(bytes: Buffer, aesKey: SymmetricKey, masterPublicKey: RsaKeyInput | null): JobLoad {
  const env = parsePublicationEnvelope(decodeFrame(bytes, 'publication'));
  if (masterPublicKey !== null) {
    if (env.sig === undefined) {
      throw new CryptoError(
        'NO_SIGNATURE',
        'publication: message signing is enabled but the payload has no signature: ' +
          'set sign_pub_messages: True in the master config, or sign_pub_messages: False in this minion config',
      );
    }
    const hash = signingHash(env.sig_algo);
    if (hash === undefined) {
      throw new ProtocolError('BAD_LOAD', `publication: unsupported sig_algo ${JSON.stringify(env.sig_algo)}`);
    }
    if (!verifyPkcs1v15(masterPublicKey, env.load, env.sig, hash)) {
      throw new CryptoError('BAD_SIGNATURE', 'publication: the master signature does not verify');
    }
  }
  return parseJobLoad(decode(openSealed(aesKey, env.load, 'publication')));
}

/**
 * The payload frame of a publication: one frame, or (a Salt master with `zmq_filtering`) a topic
 * frame followed by the payload.
 */
export function publicationPayload(frames: Buffer[]): Buffer {
  if (frames.length === 1) return frames[0];
  if (frames.length === 2) return frames[1];
  throw new ProtocolError('BAD_LOAD', `publication: expected 1 or 2 frames, got ${frames.length}`);
}
