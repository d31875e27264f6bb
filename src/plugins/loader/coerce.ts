import type { ArgDef } from '../api/args';
import { InvocationError } from '../api/errors';
import { isTrue } from '../../core/pycompat/is-true';
import { pyFloatText, pyIntText } from '../../core/pycompat/text';

/** A value as a message shows it. */
function show(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return JSON.stringify(v) ?? String(v);
}

const WHAT: Record<ArgDef['type'], string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  list: 'a list',
  dict: 'a dict',
  any: 'a value',
};

function refuse(name: string, what: string, v: unknown): never {
  throw new InvocationError(`${name} must be ${what}, got ${show(v)}`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !Buffer.isBuffer(v) && !(v instanceof Uint8Array);
}

function toType(def: ArgDef, name: string, v: unknown): unknown {
  switch (def.type) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' || typeof v === 'bigint') return String(v); // Python's str(5) is '5'
      return refuse(name, WHAT.string, v);
    case 'integer': {
      const n = typeof v === 'string' ? pyIntText(v) : typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isInteger(n)) return refuse(name, WHAT.integer, v);
      return n;
    }
    case 'number': {
      const n = typeof v === 'string' ? pyFloatText(v) : typeof v === 'bigint' ? Number(v) : v;
      if (typeof n !== 'number' || Number.isNaN(n)) return refuse(name, WHAT.number, v);
      return n;
    }
    case 'boolean':
      return isTrue(v);
    case 'list': {
      // Salt's split_input: a scalar is its str() split on commas, each item stripped.
      const splittable = def.split && (typeof v === 'string' || typeof v === 'number');
      const list = Array.isArray(v)
        ? v
        : splittable
          ? String(v)
              .split(',')
              .map((x) => x.trim())
          : refuse(name, def.split ? 'a list or a comma-separated string' : 'a list', v);
      return def.of ? list.map((item, i) => coerceArg(def.of as ArgDef, `${name}[${i}]`, item)) : [...list];
    }
    case 'dict':
      if (!isPlainObject(v)) return refuse(name, WHAT.dict, v);
      return v;
    case 'any':
      return v;
  }
}

function sizeOf(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' || Array.isArray(v)) return v.length;
  return undefined;
}

function validate(def: ArgDef, name: string, v: unknown): void {
  if (def.enum && !def.enum.includes(v)) {
    throw new InvocationError(`${name} must be one of ${def.enum.map(show).join(', ')}; got ${show(v)}`);
  }
  if (def.nonEmpty && (v === '' || (Array.isArray(v) && v.length === 0) || (isPlainObject(v) && Object.keys(v).length === 0))) {
    throw new InvocationError(`${name} must not be empty`);
  }
  const size = sizeOf(v);
  const measure = Array.isArray(v) ? ' items' : ' characters';
  if (def.min !== undefined && size !== undefined && size < def.min) {
    throw new InvocationError(
      typeof v === 'number' ? `${name} must be at least ${def.min}, got ${show(v)}` : `${name} must have at least ${def.min}${measure}`,
    );
  }
  if (def.max !== undefined && size !== undefined && size > def.max) {
    throw new InvocationError(
      typeof v === 'number' ? `${name} must be at most ${def.max}, got ${show(v)}` : `${name} must have at most ${def.max}${measure}`,
    );
  }
  if (def.pattern && typeof v === 'string' && !new RegExp(def.pattern.source, def.pattern.flags.replace(/[gy]/g, '')).test(v)) {
    throw new InvocationError(`${name} must match ${def.pattern}, got ${show(v)}`);
  }
}

/**
 * A given value as the declared argument wants it, or `InvocationError` naming the argument and
 * the problem (the executor answers `ERROR executing '<fun>': <message>`, as Salt answers a
 * `SaltInvocationError`). `null` (Python's None) given for an optional argument means "left
 * out": the default applies.
 *
 * @example
 * coerceArg(arg.integer({ min: 1 }), 'count', '3')   // 3
 * coerceArg(arg.boolean(), 'force', 'True')          // true
 * coerceArg(arg.integer(), 'count', 'x')  // throws "count must be an integer, got 'x'"
 */
export function coerceArg(def: ArgDef, name: string, value: unknown): unknown {
  if (value === undefined || (value === null && def.type !== 'any')) {
    if (def.optional) return 'default' in def ? structuredClone(def.default) : undefined;
    if (value === null) return refuse(name, WHAT[def.type], value);
  }
  const v = toType(def, name, value);
  validate(def, name, v);
  return v;
}
