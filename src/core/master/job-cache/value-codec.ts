/**
 * Values (args, returns) as JSON text. msgpack-decoded values hold things JSON has not, so they are
 * tagged:
 *
 *   encodeValue({ raw: Buffer.from([0xff]) })   // '{"raw":{"$bytes_b64":"/w=="}}'
 *   encodeValue(2n ** 70n)                      // '"1180591620717411303424"' (bigints become text)
 *   encodeValue(new Map([[1, 'a']]))            // '{"$map":[[1,"a"]]}' (Python int keys)
 *   encodeValue(NaN)                            // '{"$float":"NaN"}'
 *
 * A plain object that itself looks like a tag is wrapped in `{"$obj": ...}`, so decoding gives
 * back exactly what was encoded (bigints aside). `undefined` is stored as null.
 */
import { JobCacheError } from './errors';
import { BrineError } from '../../errors';

const TAGS = new Set(['$bytes_b64', '$map', '$float', '$obj']);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function fail(message: string): never {
  throw new JobCacheError('BAD_JOB_CACHE_VALUE', message, {
    hint: 'job cache values are what msgpack decodes: null, booleans, numbers, bigints, strings, Buffers, arrays, plain objects and Maps',
  });
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function looksLikeTag(obj: Record<string, unknown>): boolean {
  const keys = Object.keys(obj);
  return keys.length === 1 && TAGS.has(keys[0]);
}

function toJson(value: unknown, path: string, seen: Set<object>): Json {
  switch (typeof value) {
    case 'undefined':
      return null;
    case 'boolean':
    case 'string':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : { $float: String(value) };
    case 'bigint':
      return value.toString();
    case 'object':
      break;
    default:
      return fail(`cannot store a ${typeof value} at ${path}`);
  }
  if (value === null) return null;
  if (Buffer.isBuffer(value) || value instanceof Uint8Array) {
    return { $bytes_b64: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) fail(`invalid Date at ${path}`);
    return value.toISOString();
  }
  if (seen.has(value)) fail(`circular reference at ${path}`);
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v, i) => toJson(v, `${path}[${i}]`, seen));
    if (value instanceof Map) {
      return { $map: [...value].map(([k, v], i) => [toJson(k, `${path}<key ${i}>`, seen), toJson(v, `${path}<value ${i}>`, seen)]) };
    }
    if (!isPlainObject(value)) fail(`cannot store a ${value.constructor?.name ?? 'object'} at ${path}`);
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      Object.defineProperty(out, k, { value: toJson(v, `${path}.${k}`, seen), enumerable: true, writable: true, configurable: true });
    }
    return looksLikeTag(value) ? { $obj: out } : out;
  } finally {
    seen.delete(value);
  }
}

/** A value as JSON text; throws `BrineError BAD_JOB_CACHE_VALUE` for what msgpack never yields. */
export function encodeValue(value: unknown): string {
  return JSON.stringify(toJson(value, '$', new Set()));
}

function fromJson(value: Json): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromJson);
  if (looksLikeTag(value)) {
    const [tag] = Object.keys(value);
    const inner = value[tag];
    switch (tag) {
      case '$bytes_b64':
        if (typeof inner !== 'string') fail('$bytes_b64 holds no base64 text');
        return Buffer.from(inner, 'base64');
      case '$float':
        if (inner !== 'NaN' && inner !== 'Infinity' && inner !== '-Infinity') fail(`$float holds ${JSON.stringify(inner)}`);
        return Number(inner);
      case '$map':
        if (!Array.isArray(inner) || !inner.every((e) => Array.isArray(e) && e.length === 2)) fail('$map holds no [key, value] pairs');
        return new Map((inner as Json[][]).map(([k, v]) => [fromJson(k), fromJson(v)]));
      case '$obj':
        if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) fail('$obj holds no object');
        return plainFromJson(inner);
    }
  }
  return plainFromJson(value);
}

function plainFromJson(obj: { [key: string]: Json }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // defineProperty: a key named __proto__ stays an ordinary key.
  for (const [k, v] of Object.entries(obj))
    Object.defineProperty(out, k, { value: fromJson(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/** The value that `encodeValue` stored; throws `BrineError BAD_JOB_CACHE_VALUE` on text it did not write. */
export function decodeValue(text: string): unknown {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (err) {
    return fail(`stored value is not JSON: ${(err as Error).message}`);
  }
  return fromJson(parsed);
}
