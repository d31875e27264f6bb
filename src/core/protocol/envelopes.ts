/**
 * The outer maps of Salt's messages (the last ZeroMQ frame, msgpack-decoded, nothing decrypted).
 * Field sets and order follow the captures in ../shared/salt-wire/.
 */
import { ProtocolError } from '../errors';
import { Obj, bytes, describe, int, isObj, literal, obj, optBytes, optStr, str, withFields, map } from './fields';

/** `{enc: 'clear', load: {...}, version: 3}` from a minion or the CLI. */
export interface ClearRequestEnvelope {
  enc: 'clear';
  load: Obj;
  version: number;
  [extra: string]: unknown;
}

/** `{enc: 'aes', load: Crypticle(session key) bytes, version: 3, id, enc_algo, sig_algo}`. */
export interface AesRequestEnvelope {
  enc: 'aes';
  load: Buffer;
  version: number;
  id: string;
  enc_algo: string;
  sig_algo: string;
  [extra: string]: unknown;
}

export type RequestEnvelope = ClearRequestEnvelope | AesRequestEnvelope;

/** The signed clear reply to `_auth`: `load` is the msgpack bytes of the inner load, `sig` signs them. */
export interface AuthReplyEnvelope {
  enc: 'clear';
  load: Buffer;
  sig: Buffer;
  [extra: string]: unknown;
}

/** A job on the publish port: `{enc: 'aes', load, sig_algo: 'PKCS1v15-SHA1', sig}`. */
export interface PublicationEnvelope {
  enc: 'aes';
  load: Buffer;
  /** Absent when the master does not sign (its `sign_pub_messages: False`). */
  sig_algo?: string;
  sig?: Buffer;
  [extra: string]: unknown;
}

/** The `_pillar` reply: `key` = OAEP(minion pub, K), `pillar` = Crypticle(K) of the signed data. */
export interface SendPrivateReply {
  key: Buffer;
  pillar: Buffer;
  [extra: string]: unknown;
}

/** A clear reply `{enc: 'clear', load: {...}}` (the CLI's publish reply). */
export interface ClearReplyEnvelope {
  enc: 'clear';
  load: Obj;
  [extra: string]: unknown;
}

export function parseRequestEnvelope(value: unknown): RequestEnvelope {
  const what = 'request';
  const o = obj(what, value);
  const enc = o.enc;
  if (enc === 'clear') {
    return withFields<ClearRequestEnvelope>(o, { load: map(what, o, 'load'), version: int(what, o, 'version') });
  }
  if (enc === 'aes') {
    return withFields<AesRequestEnvelope>(o, {
      load: bytes(what, o, 'load'),
      version: int(what, o, 'version'),
      id: str(what, o, 'id'),
      enc_algo: str(what, o, 'enc_algo'),
      sig_algo: str(what, o, 'sig_algo'),
    });
  }
  throw new ProtocolError('BAD_LOAD', `request: field 'enc' must be "clear" or "aes", got ${describe(enc)}`);
}

export function parseAuthReplyEnvelope(value: unknown): AuthReplyEnvelope {
  const what = '_auth reply';
  const o = obj(what, value);
  literal(what, o, 'enc', 'clear');
  return withFields<AuthReplyEnvelope>(o, { load: bytes(what, o, 'load'), sig: bytes(what, o, 'sig') });
}

export function parsePublicationEnvelope(value: unknown): PublicationEnvelope {
  const what = 'publication';
  const o = obj(what, value);
  literal(what, o, 'enc', 'aes');
  return withFields<PublicationEnvelope>(o, {
    load: bytes(what, o, 'load'),
    sig_algo: optStr(what, o, 'sig_algo'),
    sig: optBytes(what, o, 'sig'),
  });
}

export function parseSendPrivateReply(value: unknown): SendPrivateReply {
  const what = 'send_private reply';
  const o = obj(what, value);
  return withFields<SendPrivateReply>(o, { key: bytes(what, o, 'key'), pillar: bytes(what, o, 'pillar') });
}

export function parseClearReplyEnvelope(value: unknown): ClearReplyEnvelope {
  const what = 'clear reply';
  const o = obj(what, value);
  literal(what, o, 'enc', 'clear');
  if (!isObj(o.load)) throw new ProtocolError('BAD_LOAD', `clear reply: field 'load' must be a map, got ${describe(o.load)}`);
  return o as ClearReplyEnvelope;
}
