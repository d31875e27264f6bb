/**
 * The value types of config options and their checks. Each check returns the (possibly
 * normalised) value or a phrase saying what was expected, which the loader turns into
 * "<file>: <option> must be <phrase>, got <value>".
 */
import { ENCRYPTION_ALGORITHMS, SIGNING_ALGORITHMS, encryptionHash, signingHash } from '../crypto/rsa-algorithms';

export type OptionType =
  | 'str'
  | 'str?'
  | 'int'
  | 'int?'
  | 'port'
  | 'number'
  | 'bool'
  | 'path'
  | 'path?'
  | 'strlist'
  | 'str|strlist'
  | 'dict'
  | 'dict?'
  | 'loglevel'
  | 'any'
  | 'hash'
  | 'signing'
  | 'encryption'
  | 'no-sudo'
  | 'roots-only'
  | 'str-master'
  | 'transport';

export const LOG_LEVEL_NAMES = ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];

type Check = { ok: true; value: unknown } | { ok: false; expected: string };
const ok = (value: unknown): Check => ({ ok: true, value });
const no = (expected: string): Check => ({ ok: false, expected });

/** Salt converts numeric strings for integer options (int(value)); so does brine. */
function asInt(value: unknown): number | null {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^\s*[-+]?\d+\s*$/.test(value)) return Number(value);
  return null;
}

const isDict = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);

export function checkOption(type: OptionType, value: unknown): Check {
  switch (type) {
    case 'any':
      return ok(value);
    case 'str':
      return typeof value === 'string' ? ok(value) : typeof value === 'number' ? ok(String(value)) : no('a string');
    case 'str?':
      return value === null ? ok(null) : checkOption('str', value).ok ? checkOption('str', value) : no('a string or null');
    case 'path':
      return typeof value === 'string' && value !== '' ? ok(value) : no('a path');
    case 'path?':
      return value === null || value === '' ? ok(null) : typeof value === 'string' ? ok(value) : no('a path or null');
    case 'int': {
      const n = asInt(value);
      return n === null ? no('an integer') : ok(n);
    }
    case 'int?': {
      if (value === null) return ok(null);
      const n = asInt(value);
      return n === null ? no('an integer or null') : ok(n);
    }
    case 'port': {
      const n = asInt(value);
      return n !== null && n >= 1 && n <= 65535 ? ok(n) : no('a port number (1-65535)');
    }
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return ok(value);
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return ok(Number(value));
      return no('a number');
    case 'bool':
      return typeof value === 'boolean' ? ok(value) : no('true or false');
    case 'strlist':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? ok(value) : no('a list of strings');
    case 'str|strlist':
      if (typeof value === 'string') return ok(value);
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? ok(value) : no('a string or a list of strings');
    case 'dict':
      return isDict(value) ? ok(value) : value === null ? ok({}) : no('a mapping');
    case 'dict?':
      return value === null || isDict(value) ? ok(value) : no('a mapping or null');
    case 'loglevel':
      return typeof value === 'string' && (LOG_LEVEL_NAMES as readonly string[]).includes(value.toLowerCase())
        ? ok(value.toLowerCase())
        : no(`one of ${LOG_LEVEL_NAMES.join(', ')}`);
    case 'hash':
      return typeof value === 'string' && ['md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512'].includes(value.toLowerCase())
        ? ok(value.toLowerCase())
        : no('one of md5, sha1, sha224, sha256, sha384, sha512');
    case 'signing':
      return signingHash(value) !== undefined ? ok(value) : no(`one of ${Object.keys(SIGNING_ALGORITHMS).join(', ')}`);
    case 'encryption':
      return encryptionHash(value) !== undefined ? ok(value) : no(`one of ${Object.keys(ENCRYPTION_ALGORITHMS).join(', ')}`);
    case 'no-sudo':
      // Salt's sudo executor runs every job as `sudo -u <sudo_user> salt-call ...` from a minion
      // that runs as another user: not built, so refused rather than have jobs run as the minion's user.
      return value === '' || value === null
        ? ok('')
        : no('empty (brine does not run jobs through sudo: run salt-minion as the user the jobs should run as)');
    case 'roots-only': {
      // Salt's other file server backends (gitfs, s3fs, ...) are not built: a state tree meant
      // to come from one would be missing without a word.
      const list = typeof value === 'string' ? [value] : value;
      return Array.isArray(list) && list.length > 0 && list.every((v) => v === 'roots' || v === 'rootfs')
        ? ok(['roots'])
        : no("[roots] (brine's file server serves file_roots only; gitfs, s3fs and the others are not built)");
    }
    case 'str-master':
      // Salt's multi-master modes (failover, func) and master_type: disable are not built.
      return value === 'str' ? ok(value) : no("'str' (brine's minion talks to one master: failover, func and disable are not built)");
    case 'transport':
      return value === 'zeromq' ? ok(value) : no("'zeromq' (the only transport brine speaks)");
  }
}

/** A value for error messages: strings quoted, the rest as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'bigint') return value.toString();
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    return String(value);
  }
}
