/**
 * Typed validators for Salt's loads (the inner maps, after decryption where there is any).
 * Each `parseX(value)` returns a copy with the known fields typed (raw bytes as Buffer) and unknown
 * fields kept in place, or throws `ProtocolError('BAD_LOAD')` naming the field.
 */
import { ProtocolError } from '../errors';
import {
  Obj,
  array,
  bytes,
  describe,
  int,
  isObj,
  literal,
  map,
  nonce,
  obj,
  optBool,
  optBytes,
  optInt,
  optStr,
  str,
  strOrNil,
  strOrStrings,
  stringArray,
  withFields,
} from './fields';
import { isJid } from './jid';

export * from './envelopes';
export type { Obj } from './fields';

/** `_auth` (clear): `token` appears once the minion has cached the master's public key. */
export interface AuthRequest {
  cmd: '_auth';
  id: string;
  nonce: string;
  enc_algo: string;
  sig_algo: string;
  /** The grains the minion's `autosign_grains` names, with its values (Salt's autosign by grains). */
  autosign_grains?: Obj;
  token?: Buffer;
  pub: string;
  [extra: string]: unknown;
}

export interface AuthPendingLoad {
  ret: true;
  nonce: string;
  [extra: string]: unknown;
}
export interface AuthRejectedLoad {
  ret: false;
  nonce: string;
  [extra: string]: unknown;
}
/** Salt answers `ret: 'full'` when `max_minions` is reached. */
export interface AuthFullLoad {
  ret: 'full';
  nonce: string;
  [extra: string]: unknown;
}
export interface AuthAcceptedLoad {
  enc: 'pub';
  pub_key: string;
  publish_port: number;
  token?: Buffer;
  aes: Buffer;
  session: Buffer;
  sig: Buffer;
  nonce: string;
  [extra: string]: unknown;
}
export type AuthReplyLoad = AuthPendingLoad | AuthRejectedLoad | AuthFullLoad | AuthAcceptedLoad;

/** What every aes request load carries besides its command's own fields. */
export interface AesRequestLoad {
  cmd: string;
  id: string;
  nonce: string;
  ts: number;
  tok: Buffer;
  [extra: string]: unknown;
}

/** A job as published: `{fun, arg, tgt, jid, ret, tgt_type, user, serial}` plus optional extras. */
export interface JobLoad {
  fun: string | string[];
  arg: unknown[];
  tgt: string | string[];
  jid: string;
  ret: string;
  tgt_type: string;
  user?: string;
  serial?: number;
  kwargs?: Obj;
  [extra: string]: unknown;
}

/** `_return`; a `salt-call` return has `jid: 'req'` and no `success`/`user`/`_stamp`. */
export interface ReturnLoad {
  cmd: '_return';
  id: string;
  success?: boolean;
  return: unknown;
  retcode?: number;
  jid: string;
  fun: string;
  fun_args: unknown[];
  user?: string;
  out?: string;
  _stamp?: string;
  [extra: string]: unknown;
}

/** What running a job yields, and the minion sends back in its `_return`. */
export interface JobResult {
  return: unknown;
  retcode: number;
  success: boolean;
  out?: string;
}

/** `_minion_event`: one event (`tag`, `data`) or a batch (`events`). */
export interface MinionEventLoad {
  cmd: '_minion_event';
  id: string;
  tag?: string;
  data?: unknown;
  pretag?: string | null;
  events?: unknown[];
  [extra: string]: unknown;
}

export interface PillarRequestLoad {
  cmd: '_pillar';
  id: string;
  grains: Obj;
  saltenv: string | null;
  pillarenv: string | null;
  pillar_override: Obj;
  extra_minion_data: Obj;
  ver: string;
  [extra: string]: unknown;
}

/** The `salt` CLI's clear `publish` request (`key` = the master's root key). */
export interface PublishRequestLoad {
  cmd: 'publish';
  tgt: string | string[];
  fun: string | string[];
  arg: unknown[];
  key: string;
  tgt_type: string;
  ret: string;
  jid: string;
  kwargs: Obj;
  user: string;
  [extra: string]: unknown;
}

/**
 * The master's answer to a publish: a job (`not_connected` is brine's: the expected minions the
 * master holds no session for; a Salt master leaves it out), no job (`jid: null`, the minions it
 * resolved, why), or a refusal before any target was looked at (no `jid` at all, only `error`).
 */
export type PublishReply =
  | { jid: string; minions: string[]; missing: string[]; not_connected?: string[]; [extra: string]: unknown }
  | { jid: null; minions: string[]; error: string; [extra: string]: unknown }
  | { jid?: undefined; error: string; [extra: string]: unknown };

export function parseAuthRequest(value: unknown): AuthRequest {
  const what = '_auth request';
  const o = obj(what, value);
  return withFields<AuthRequest>(o, {
    cmd: literal(what, o, 'cmd', '_auth'),
    id: str(what, o, 'id'),
    nonce: nonce(what, o),
    enc_algo: str(what, o, 'enc_algo'),
    sig_algo: str(what, o, 'sig_algo'),
    autosign_grains: o.autosign_grains === undefined ? undefined : map(what, o, 'autosign_grains'),
    token: optBytes(what, o, 'token'),
    pub: str(what, o, 'pub'),
  });
}

export function parseAuthReplyLoad(value: unknown): AuthReplyLoad {
  const what = '_auth reply load';
  const o = obj(what, value);
  if ('ret' in o) {
    if (o.ret !== true && o.ret !== false && o.ret !== 'full') {
      throw new ProtocolError('BAD_LOAD', `${what}: field 'ret' must be true, false or "full", got ${describe(o.ret)}`);
    }
    return withFields<AuthPendingLoad | AuthRejectedLoad | AuthFullLoad>(o, { nonce: nonce(what, o) });
  }
  return withFields<AuthAcceptedLoad>(o, {
    enc: literal(what, o, 'enc', 'pub'),
    pub_key: str(what, o, 'pub_key'),
    publish_port: int(what, o, 'publish_port'),
    token: optBytes(what, o, 'token'),
    aes: bytes(what, o, 'aes'),
    session: bytes(what, o, 'session'),
    sig: bytes(what, o, 'sig'),
    nonce: nonce(what, o),
  });
}

export function parseAesRequestLoad(value: unknown): AesRequestLoad {
  const what = 'aes request load';
  const o = obj(what, value);
  return withFields<AesRequestLoad>(o, {
    cmd: str(what, o, 'cmd'),
    id: str(what, o, 'id'),
    nonce: nonce(what, o),
    ts: int(what, o, 'ts'),
    tok: bytes(what, o, 'tok'),
  });
}

export function parseJobLoad(value: unknown): JobLoad {
  const what = 'job';
  const o = obj(what, value);
  const jid = str(what, o, 'jid');
  if (!isJid(jid)) throw new ProtocolError('BAD_LOAD', `${what}: field 'jid' must be a 20-digit jid, got ${describe(jid)}`);
  return withFields<JobLoad>(o, {
    fun: strOrStrings(what, o, 'fun'),
    arg: array(what, o, 'arg'),
    tgt: strOrStrings(what, o, 'tgt'),
    jid,
    ret: str(what, o, 'ret'),
    tgt_type: str(what, o, 'tgt_type'),
    user: optStr(what, o, 'user'),
    serial: optInt(what, o, 'serial'),
    kwargs: o.kwargs === undefined ? undefined : map(what, o, 'kwargs'),
  });
}

export function parseReturnLoad(value: unknown): ReturnLoad {
  const what = '_return';
  const o = obj(what, value);
  if (!('return' in o)) throw new ProtocolError('BAD_LOAD', `${what}: field 'return' is missing`);
  return withFields<ReturnLoad>(o, {
    cmd: literal(what, o, 'cmd', '_return'),
    id: str(what, o, 'id'),
    success: optBool(what, o, 'success'),
    retcode: optInt(what, o, 'retcode'),
    jid: str(what, o, 'jid'),
    fun: str(what, o, 'fun'),
    fun_args: array(what, o, 'fun_args'),
    user: optStr(what, o, 'user'),
    out: optStr(what, o, 'out'),
    _stamp: optStr(what, o, '_stamp'),
  });
}

export function parseMinionEventLoad(value: unknown): MinionEventLoad {
  const what = '_minion_event';
  const o = obj(what, value);
  const typed: Obj = { cmd: literal(what, o, 'cmd', '_minion_event'), id: str(what, o, 'id') };
  if (o.events !== undefined) {
    typed.events = array(what, o, 'events');
  } else {
    typed.tag = str(what, o, 'tag');
    if (!('data' in o)) throw new ProtocolError('BAD_LOAD', `${what}: field 'data' is missing`);
  }
  if ('pretag' in o) typed.pretag = strOrNil(what, o, 'pretag');
  return withFields<MinionEventLoad>(o, typed);
}

export function parsePillarRequestLoad(value: unknown): PillarRequestLoad {
  const what = '_pillar';
  const o = obj(what, value);
  return withFields<PillarRequestLoad>(o, {
    cmd: literal(what, o, 'cmd', '_pillar'),
    id: str(what, o, 'id'),
    grains: map(what, o, 'grains'),
    saltenv: strOrNil(what, o, 'saltenv'),
    pillarenv: strOrNil(what, o, 'pillarenv'),
    pillar_override: o.pillar_override === undefined || o.pillar_override === null ? {} : map(what, o, 'pillar_override'),
    extra_minion_data: o.extra_minion_data === undefined || o.extra_minion_data === null ? {} : map(what, o, 'extra_minion_data'),
    ver: str(what, o, 'ver'),
  });
}

export function parsePublishRequestLoad(value: unknown): PublishRequestLoad {
  const what = 'publish request';
  const o = obj(what, value);
  return withFields<PublishRequestLoad>(o, {
    cmd: literal(what, o, 'cmd', 'publish'),
    tgt: strOrStrings(what, o, 'tgt'),
    fun: strOrStrings(what, o, 'fun'),
    arg: array(what, o, 'arg'),
    key: str(what, o, 'key'),
    tgt_type: str(what, o, 'tgt_type'),
    ret: str(what, o, 'ret'),
    jid: str(what, o, 'jid'),
    kwargs: map(what, o, 'kwargs'),
    user: str(what, o, 'user'),
  });
}

export function parsePublishReply(value: unknown): PublishReply {
  const what = 'publish reply';
  const o = obj(what, value);
  if (o.jid === null) {
    return withFields<PublishReply>(o, { minions: stringArray(what, o, 'minions'), error: str(what, o, 'error') });
  }
  // A refusal without a jid at all: `{error: 'Master failed to assign jid'}`, or an auth failure's
  // `{error: {name: 'AuthorizationError', message: ...}}` (salt/master.py publish).
  if (!('jid' in o) && 'error' in o) return { ...o, error: errorText(what, o.error) };
  const jid = str(what, o, 'jid');
  if (!isJid(jid)) throw new ProtocolError('BAD_LOAD', `${what}: field 'jid' must be a 20-digit jid, got ${describe(jid)}`);
  return withFields<PublishReply>(o, {
    minions: stringArray(what, o, 'minions'),
    missing: stringArray(what, o, 'missing'),
    ...(o.not_connected === undefined ? {} : { not_connected: stringArray(what, o, 'not_connected') }),
  });
}

function errorText(what: string, error: unknown): string {
  if (typeof error === 'string') return error;
  if (isObj(error) && typeof error.message === 'string')
    return typeof error.name === 'string' && error.name !== '' ? `${error.name}: ${error.message}` : error.message;
  throw new ProtocolError('BAD_LOAD', `${what}: field 'error' must be a string or {name, message}, got ${describe(error)}`);
}

/** True for a decoded value that is a plain map with string keys. */
export { isObj };
