import { isKwargMap, parseKwargString, unpackArgs } from '../../core/protocol/salt-args';
import { ArgumentError, InvocationError } from '../api/errors';
import { coerceArg } from './coerce';
import type { FnDescriptor } from './descriptors';

/** Salt's job data handed to a function that accepts any keyword, as `__pub_<key>`. */
export type PubData = Record<string, unknown>;

const UNSET = Symbol('unset');

/**
 * Split a Salt `arg` list into positional values and keyword arguments, in order as Salt's
 * `load_args_and_kwargs` reads them: `__kwarg__` maps (the protocol's codec) and positional
 * strings of the form `name=value`.
 *
 * @example
 * splitArgs(['a', 'b=1', { __kwarg__: true, c: 2 }]) // { positional: ['a'], keywords: Map { 'b' => '1', 'c' => 2 } }
 */
export function splitArgs(arg: readonly unknown[]): { positional: unknown[]; keywords: Map<string, unknown> } {
  const positional: unknown[] = [];
  const keywords = new Map<string, unknown>();
  for (const item of arg) {
    if (isKwargMap(item)) {
      for (const [k, v] of Object.entries(unpackArgs([item]).kwargs)) keywords.set(k, v);
      continue;
    }
    const kw = typeof item === 'string' ? parseKwargString(item) : null;
    if (kw) keywords.set(kw[0], kw[1]);
    else positional.push(item);
  }
  return { positional, keywords };
}

// Python's wording, so messages read like Salt's "echo() missing 1 required positional argument: 'text'".
function quoteList(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0];
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

function takesMessage(fn: string, min: number, max: number, given: number): string {
  const takes = min === max ? `${max} positional argument${max === 1 ? '' : 's'}` : `from ${min} to ${max} positional arguments`;
  return `${fn}() takes ${takes} but ${given} ${given === 1 ? 'was' : 'were'} given`;
}

// Python's str() of a value in "The following keyword arguments are not valid: k=v".
function showValue(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  return JSON.stringify(v) ?? String(v);
}

/**
 * Maps a job's `arg` list onto a function's parameters the way Salt's minion does
 * (`load_args_and_kwargs`, then Python's call rules) and returns the values to call the method
 * with: one object for a function with a schema (values coerced and validated), the values in
 * order for a plain-JS one.
 * - a keyword naming no parameter, for a function without `**kwargs`: `InvocationError` "The
 *   following keyword arguments are not valid: k=v" (Salt's check);
 * - too many or too few values, a value given twice: `ArgumentError` with Python's `TypeError`
 *   wording ("echo() missing 1 required positional argument: 'text'");
 * - a value of the wrong type or out of bounds: `InvocationError` naming the argument.
 * `pub` is given only for jobs from a master, not for cross-calls, as in Salt.
 *
 * @example
 * bindArguments(echoDescriptor, ['hi'])  // [{ text: 'hi' }]
 * bindArguments(echoDescriptor, [])      // throws ArgumentError "echo() missing 1 required positional argument: 'text'"
 */
export function bindArguments(fn: FnDescriptor, arg: readonly unknown[], pub?: PubData): unknown[] {
  const { positional, keywords } = splitArgs(arg);
  const named = fn.params.filter((p) => p.kind === 'positional');
  const rest = fn.params.find((p) => p.kind === 'rest');
  const bagParam = fn.params.find((p) => p.kind === 'kwargs');
  const values: unknown[] = named.map(() => UNSET);
  const bag: Record<string, unknown> = {};

  const invalid: string[] = [];
  const duplicated: string[] = [];
  for (const [key, value] of keywords) {
    const i = named.findIndex((p) => p.name === key);
    if (i !== -1) {
      if (i < positional.length) duplicated.push(key);
      values[i] = value;
    } else if (bagParam && (fn.kwargsKeys === null || fn.kwargsKeys.includes(key))) {
      bag[key] = value;
    } else {
      invalid.push(`${key}=${showValue(value)}`);
    }
  }
  if (invalid.length > 0) throw new InvocationError(`The following keyword arguments are not valid: ${invalid.join(', ')}`);

  if (!rest && positional.length > named.length) {
    const min = named.filter((p) => !p.optional).length;
    throw new ArgumentError(takesMessage(fn.method, min, named.length, positional.length));
  }
  if (duplicated.length > 0) throw new ArgumentError(`${fn.method}() got multiple values for argument '${duplicated[0]}'`);
  positional.slice(0, named.length).forEach((v, i) => (values[i] = v));
  const missing = named.filter((p, i) => !p.optional && values[i] === UNSET).map((p) => p.name);
  if (missing.length > 0) {
    throw new ArgumentError(
      `${fn.method}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${quoteList(missing)}`,
    );
  }
  if (bagParam && fn.kwargsKeys === null && pub) {
    for (const [k, v] of Object.entries(pub)) bag[`__pub_${k}`] = v;
  }
  const extra = positional.slice(named.length);

  if (fn.call === 'object') {
    const call: Record<string, unknown> = {};
    named.forEach((p, i) => {
      const v = values[i] === UNSET ? undefined : values[i];
      call[p.name] = p.arg ? coerceArg(p.arg, p.name, v) : v;
    });
    if (rest) call[rest.name] = extra;
    if (bagParam) call[bagParam.name] = bag;
    return [call];
  }
  const call: unknown[] = [];
  let nextNamed = 0;
  for (const p of fn.params) {
    if (p.kind === 'positional') {
      const v = values[nextNamed++];
      call.push(v === UNSET ? undefined : v); // undefined lets the method's default apply
    } else if (p.kind === 'kwargs') {
      call.push(bag);
    } else {
      call.push(...extra);
    }
  }
  return call;
}

/**
 * An ext_pillar entry's configured value as a Salt `arg` list: a map is keyword arguments, a list
 * positional ones, anything else the one positional value (Salt's `_external_pillar_data`).
 *
 * @example
 * extPillarArgs({ roles: { web1: 'web' } }) // [{ __kwarg__: true, roles: { web1: 'web' } }]
 * extPillarArgs('echo x')                   // ['echo x']
 */
export function extPillarArgs(value: unknown): unknown[] {
  if (Array.isArray(value)) return [...value];
  if (typeof value === 'object' && value !== null && !Buffer.isBuffer(value))
    return [{ ...(value as Record<string, unknown>), __kwarg__: true }];
  return [value];
}
