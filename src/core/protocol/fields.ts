/**
 * Small field readers shared by the load validators. Each throws `ProtocolError('BAD_LOAD')` naming
 * the message and the field, so a peer's mistake is reported as "what is wrong where".
 */
import { ProtocolError } from '../errors';
import { toBytes } from './msgpack';

export type Obj = Record<string, unknown>;

export function badLoad(what: string, field: string, expected: string, got: unknown): ProtocolError {
  return new ProtocolError('BAD_LOAD', `${what}: field '${field}' must be ${expected}, got ${describe(got)}`);
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing (missing)';
  if (v === null) return 'nil';
  if (Buffer.isBuffer(v)) return `${v.length} bytes`;
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Map) return 'a map with non-string keys';
  if (typeof v === 'object') return 'a map';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '...' : v)}`;
  return `${typeof v} ${String(v)}`;
}

export function isObj(v: unknown): v is Obj {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v) && !(v instanceof Map) && !(v instanceof Uint8Array)
  );
}

/** The message itself must be a map with string keys. */
export function obj(what: string, v: unknown): Obj {
  if (!isObj(v)) throw new ProtocolError('BAD_LOAD', `${what}: expected a map, got ${describe(v)}`);
  return v;
}

export function str(what: string, o: Obj, field: string): string {
  const v = o[field];
  if (typeof v !== 'string') throw badLoad(what, field, 'a string', v);
  return v;
}

export function optStr(what: string, o: Obj, field: string): string | undefined {
  return o[field] === undefined ? undefined : str(what, o, field);
}

export function strOrNil(what: string, o: Obj, field: string): string | null {
  const v = o[field];
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw badLoad(what, field, 'a string or nil', v);
  return v;
}

export function literal<T extends string>(what: string, o: Obj, field: string, value: T): T {
  const v = o[field];
  if (v !== value) throw badLoad(what, field, JSON.stringify(value), v);
  return value;
}

export function int(what: string, o: Obj, field: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw badLoad(what, field, 'an integer', v);
  return v;
}

export function optInt(what: string, o: Obj, field: string): number | undefined {
  return o[field] === undefined ? undefined : int(what, o, field);
}

export function bool(what: string, o: Obj, field: string): boolean {
  const v = o[field];
  if (typeof v !== 'boolean') throw badLoad(what, field, 'true or false', v);
  return v;
}

export function optBool(what: string, o: Obj, field: string): boolean | undefined {
  return o[field] === undefined ? undefined : bool(what, o, field);
}

/** A raw value used as bytes (ciphertext, signature): decoded as a string when it happened to be UTF-8. */
export function bytes(what: string, o: Obj, field: string): Buffer {
  const v = o[field];
  if (typeof v !== 'string' && !Buffer.isBuffer(v)) throw badLoad(what, field, 'raw bytes', v);
  return toBytes(v);
}

export function optBytes(what: string, o: Obj, field: string): Buffer | undefined {
  return o[field] === undefined ? undefined : bytes(what, o, field);
}

export function array(what: string, o: Obj, field: string): unknown[] {
  const v = o[field];
  if (!Array.isArray(v)) throw badLoad(what, field, 'an array', v);
  return v;
}

export function stringArray(what: string, o: Obj, field: string): string[] {
  const v = array(what, o, field);
  for (let i = 0; i < v.length; i++) {
    if (typeof v[i] !== 'string') throw badLoad(what, `${field}[${i}]`, 'a string', v[i]);
  }
  return v as string[];
}

export function map(what: string, o: Obj, field: string): Obj {
  const v = o[field];
  if (!isObj(v)) throw badLoad(what, field, 'a map', v);
  return v;
}

/** A target or function name: one string, or a list of strings (list targets, multi-function jobs). */
export function strOrStrings(what: string, o: Obj, field: string): string | string[] {
  const v = o[field];
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return stringArray(what, o, field);
  throw badLoad(what, field, 'a string or a list of strings', v);
}

/** Salt's nonces are uuid4().hex: 32 lowercase hex characters. */
export function nonce(what: string, o: Obj, field = 'nonce'): string {
  const v = str(what, o, field);
  if (!/^[0-9a-f]{32}$/.test(v)) throw badLoad(what, field, '32 hex characters', v);
  return v;
}

/** A copy of `o` (same key order, unknown fields kept) with the typed fields put back in place. */
export function withFields<T>(o: Obj, typed: Obj): T {
  const out: Obj = {};
  for (const k of Object.keys(o)) {
    const v = k in typed ? typed[k] : o[k];
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as T;
}
