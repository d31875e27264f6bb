import { unpackArgs } from '../../core/protocol/salt-args';
import { ArgumentError, InvocationError } from '../api/errors';
import type { FnDescriptor } from './descriptors';

/** Salt's job data handed to a function that accepts any keyword, as `__pub_<key>`. */
export type PubData = Record<string, unknown>;

const UNSET = Symbol('unset');

/** Split a Salt `arg` list into positional values and keyword arguments (the protocol's codec). */
export function splitArgs(arg: readonly unknown[]): { positional: unknown[]; keywords: Map<string, unknown> } {
  const { args, kwargs } = unpackArgs(arg);
  return { positional: args, keywords: new Map(Object.entries(kwargs)) };
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

function showValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
}

/**
 * Maps a job's `arg` list onto a function's parameters (the convention is documented on
 * `toParamSpecs` in explorer.ts) and returns the values to call the method with.
 * Unknown keywords throw `InvocationError` ("The following keyword arguments are not valid:
 * k=v", Salt's check); wrong counts throw `ArgumentError` with Python's `TypeError` wording.
 * `pub` is given only for jobs from a master, not for cross-calls, as in Salt.
 *
 * @example
 * bindArguments(echoDescriptor, ['hi'])                                  // ['hi']
 * bindArguments(echoDescriptor, [])  // throws ArgumentError "echo() missing 1 required positional argument: 'text'"
 */
export function bindArguments(fn: FnDescriptor, arg: readonly unknown[], pub?: PubData): unknown[] {
  const { positional, keywords } = splitArgs(arg);
  const named = fn.params.filter((p) => p.kind === 'positional');
  const restIndex = fn.params.findIndex((p) => p.kind === 'rest');
  const bagIndex = fn.params.findIndex((p) => p.kind === 'kwargs');
  const values: unknown[] = named.map(() => UNSET);
  const bag: Record<string, unknown> = {};

  const invalid: string[] = [];
  const duplicated: string[] = [];
  for (const [key, value] of keywords) {
    const i = named.findIndex((p) => p.name === key);
    if (i !== -1) {
      if (i < positional.length) duplicated.push(key);
      values[i] = value;
    } else if (bagIndex !== -1 && (fn.kwargsKeys === null || fn.kwargsKeys.includes(key))) {
      bag[key] = value;
    } else {
      invalid.push(`${key}=${showValue(value)}`);
    }
  }
  if (invalid.length > 0) throw new InvocationError(`The following keyword arguments are not valid: ${invalid.join(', ')}`);

  if (restIndex === -1 && positional.length > named.length) {
    const min = named.filter((p) => !p.optional).length;
    throw new ArgumentError(takesMessage(fn.name, min, named.length, positional.length));
  }
  if (duplicated.length > 0) throw new ArgumentError(`${fn.name}() got multiple values for argument '${duplicated[0]}'`);
  positional.slice(0, named.length).forEach((v, i) => (values[i] = v));
  const missing = named.filter((p, i) => !p.optional && values[i] === UNSET).map((p) => p.name);
  if (missing.length > 0) {
    throw new ArgumentError(
      `${fn.name}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${quoteList(missing)}`,
    );
  }
  if (bagIndex !== -1 && fn.kwargsKeys === null && pub) {
    for (const [k, v] of Object.entries(pub)) bag[`__pub_${k}`] = v;
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
      call.push(...positional.slice(named.length));
    }
  }
  return call;
}
