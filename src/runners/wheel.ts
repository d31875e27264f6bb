/**
 * The wheel functions salt-api clients call (salt/wheel/key.py, config.py, minions.py), over
 * the master's key store and configuration, with Salt's return shapes:
 *
 *   key.list_all            {minions, minions_pre, minions_rejected, minions_denied, local}
 *   key.accept 'web*'       {minions: [ids]}      (name_match after the move; {} when none)
 *   key.finger 'web1'       {minions: {web1: 'aa:bb:...'}}
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BrineError } from '../core/errors';
import { isTrue } from '../core/pycompat';
import { generateKeyPair } from '../core/crypto/rsa';
import { KEY_STATUS_NAMES, KeyStore, STATE_DIRS, type KeyMatches, type KeyState } from '../core/master/key-store';
import type { MasterConfig } from '../core/config';
import type { FunctionTable, MasterFunction } from './master-functions';

export interface WheelDeps {
  master: MasterConfig;
  keys: KeyStore;
  /** Ids the master holds a live connection for (minions.connected). */
  connected(): Promise<string[]>;
}

class WheelArgError extends BrineError<'WHEEL_ARGS'> {}

/** Binds positional then keyword arguments to parameter names, refusing unknown keywords as Python does. */
function bind(fun: string, params: readonly string[], args: unknown[], kwargs: Record<string, unknown>): Record<string, unknown> {
  if (args.length > params.length)
    throw new WheelArgError('WHEEL_ARGS', `${fun}() takes ${params.length} positional arguments but ${args.length} were given`);
  const out: Record<string, unknown> = {};
  args.forEach((v, i) => (out[params[i]] = v));
  for (const [k, v] of Object.entries(kwargs)) {
    if (k.startsWith('__')) continue;
    if (!params.includes(k)) throw new WheelArgError('WHEEL_ARGS', `${fun}() got an unexpected keyword argument '${k}'`);
    out[k] = v;
  }
  return out;
}

function matchOf(fun: string, a: Record<string, unknown>): string {
  if (a.match === undefined || a.match === null)
    throw new WheelArgError('WHEEL_ARGS', `${fun}() missing 1 required positional argument: 'match'`);
  return Array.isArray(a.match) ? a.match.map(String).join(',') : String(a.match);
}

/** Salt's name_match shape: state directory name -> ids, only non-empty states. */
function byDir(m: KeyMatches): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [state, ids] of Object.entries(m) as Array<[KeyState, string[]]>) if (ids.length > 0) out[STATE_DIRS[state]] = ids;
  return out;
}

function fn(
  doc: string,
  params: readonly string[],
  call: (a: Record<string, unknown>, fun: string) => unknown,
): (name: string) => MasterFunction {
  return (name) => ({ doc, call: async (args, kwargs) => call(bind(name, params, args, kwargs), name) });
}

export function wheelFunctions(deps: WheelDeps): FunctionTable {
  const { keys } = deps;
  const hashType = typeof deps.master.hash_type === 'string' ? deps.master.hash_type : 'sha256';
  const defs: Record<string, (name: string) => MasterFunction> = {
    'key.list_all': fn('\n    List all the keys\n\n    CLI Example:\n\n        salt-run wheel.key.list_all\n    ', [], () => {
      const all = keys.list('all') as Record<KeyState, string[]>;
      return {
        minions: all.accepted,
        minions_pre: all.pending,
        minions_rejected: all.rejected,
        minions_denied: all.denied,
        local: keys.localKeys(),
      };
    }),
    'key.list': fn('\n    List all the keys under a named status\n    ', ['match'], (a) => {
      const status = String(a.match);
      if (status === 'all') return wheelFunctions(deps).get('key.list_all')?.call([], {}, { user: '' });
      if (!Object.hasOwn(KEY_STATUS_NAMES, status)) return {};
      const state = KEY_STATUS_NAMES[status];
      return { [STATE_DIRS[state]]: keys.list(state) };
    }),
    'key.name_match': fn('\n    List all the keys based on a glob match\n    ', ['match'], (a, f) => byDir(keys.find(matchOf(f, a)))),
    'key.accept': fn('\n    Accept keys based on a glob match.\n    ', ['match', 'include_rejected', 'include_denied'], (a, f) => {
      const match = matchOf(f, a);
      const from: KeyState[] = ['pending'];
      if (isTrue(a.include_rejected)) from.push('rejected');
      if (isTrue(a.include_denied)) from.push('denied');
      const found = keys.find(match, from);
      keys.accept(Object.values(found).flat(), from);
      return byDir(keys.find(match));
    }),
    'key.reject': fn('\n    Reject keys based on a glob match.\n    ', ['match', 'include_accepted', 'include_denied'], (a, f) => {
      const match = matchOf(f, a);
      const from: KeyState[] = ['pending'];
      if (isTrue(a.include_accepted)) from.push('accepted');
      if (isTrue(a.include_denied)) from.push('denied');
      keys.reject(Object.values(keys.find(match, from)).flat(), from);
      return byDir(keys.find(match));
    }),
    'key.delete': fn('\n    Delete keys based on a glob match.\n    ', ['match'], (a, f) => {
      const match = matchOf(f, a);
      keys.delete(Object.values(keys.find(match)).flat());
      return byDir(keys.find(match));
    }),
    'key.finger': fn('\n    Return the matching key fingerprints.\n    ', ['match', 'hash_type'], (a, f) => {
      const match = matchOf(f, a);
      const hash = typeof a.hash_type === 'string' ? a.hash_type : hashType;
      const out: Record<string, Record<string, string>> = {};
      const local = keys.findLocal(match);
      if (local.length > 0) out.local = Object.fromEntries(local.map((k) => [k, keys.localFingerprint(k, hash) ?? '']));
      for (const [state, ids] of Object.entries(keys.find(match)) as Array<[KeyState, string[]]>) {
        out[STATE_DIRS[state]] = Object.fromEntries(ids.map((id) => [id, keys.fingerprint(id, hash, state) ?? '']));
      }
      return out;
    }),
    'key.print': fn('\n    Return information about the keys (their PEM text).\n    ', ['match'], (a, f) => {
      const out: Record<string, Record<string, string>> = {};
      for (const [state, ids] of Object.entries(keys.find(matchOf(f, a))) as Array<[KeyState, string[]]>) {
        out[STATE_DIRS[state]] = Object.fromEntries(ids.map((id) => [id, keys.publicKey(id, state) ?? '']));
      }
      return out;
    }),
    'key.gen': fn('\n    Generate a key pair; nothing is written.\n    ', ['id_', 'keysize'], (a) => {
      const bits = a.keysize === undefined ? 2048 : Number(a.keysize);
      const pair = generateKeyPair(bits);
      return { priv: pair.privatePem, pub: pair.publicPem };
    }),
    'key.gen_accept': fn(
      '\n    Generate a key pair and accept its public key for the minion id_.\n    ',
      ['id_', 'keysize', 'force'],
      (a, f) => {
        if (typeof a.id_ !== 'string' || a.id_ === '')
          throw new WheelArgError('WHEEL_ARGS', `${f}() missing 1 required positional argument: 'id_'`);
        if (keys.state(a.id_) === 'accepted' && !isTrue(a.force)) return {};
        const bits = a.keysize === undefined ? 2048 : Number(a.keysize);
        const pair = generateKeyPair(bits);
        keys.delete([a.id_]);
        keys.registerPending(a.id_, pair.publicPem);
        keys.accept([a.id_]);
        return { priv: pair.privatePem, pub: pair.publicPem };
      },
    ),
    'key.master_key_str': fn('\n    Returns the master public key.\n    ', [], () => {
      return { local: { 'master.pub': readFileSync(join(deps.master.pki_dir as string, 'master.pub'), 'utf8') } };
    }),
    'config.values': fn('\n    Return the raw values of the config file\n    ', [], () => deps.master),
    'minions.connected': fn('\n    List the minions that are connected to the master.\n    ', [], () => deps.connected()),
  };
  return new Map(Object.entries(defs).map(([name, make]) => [name, make(name)]));
}
