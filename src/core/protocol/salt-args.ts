/**
 * Salt's convention for keyword arguments inside a job's `arg` list: positional values as they
 * are, keyword arguments in a dict marked `__kwarg__: True` (salt/utils/args.py
 * `load_args_and_kwargs`). One codec for every reader and writer of `arg` (CLI, runners,
 * executor, job formatting), so the convention lives in one place.
 */

/** A dict of keyword arguments as it travels in `arg`. */
export type KwargMap = { __kwarg__: true } & Record<string, unknown>;

/** Whether `value` is a keyword-argument dict (`__kwarg__` exactly `true`, as Salt's `is True`). */
export function isKwargMap(value: unknown): value is KwargMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return false;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.prototype.hasOwnProperty.call(value, '__kwarg__') && (value as Record<string, unknown>).__kwarg__ === true;
}

// Salt's KWARG_REGEX `^([^\d\W][\w.-]*)=(?!=)(.*)$` (Unicode \w; `$` may precede a final newline).
const KWARG_STRING = /^([\p{L}\p{Nl}\p{No}_][\p{L}\p{N}_.-]*)=(?!=)([^\n]*)\n?$/u;

/**
 * A `name=value` string as Salt's `parse_kwarg` splits it (the CLI's words, and positional
 * strings a minion reads as keywords); null for a positional value.
 *
 * @example
 * parseKwargString('foo=bar=baz') // ['foo', 'bar=baz']
 * parseKwargString('9a=1') // null
 */
export function parseKwargString(word: string): [string, string] | null {
  const m = KWARG_STRING.exec(word);
  return m ? [m[1], m[2]] : null;
}

/**
 * Split an `arg` list into positional values and keyword arguments. Every kwarg dict counts,
 * wherever it stands; a later key overrides an earlier one, as in Salt. Keys are set as own
 * properties, so `__proto__` stays data.
 *
 * @example
 * unpackArgs(['a', 1, { __kwarg__: true, b: 2 }]) // { args: ['a', 1], kwargs: { b: 2 } }
 */
export function unpackArgs(arg: readonly unknown[]): { args: unknown[]; kwargs: Record<string, unknown> } {
  const args: unknown[] = [];
  const kwargs: Record<string, unknown> = {};
  for (const item of arg) {
    if (!isKwargMap(item)) {
      args.push(item);
      continue;
    }
    for (const [k, v] of Object.entries(item)) if (k !== '__kwarg__') setOwn(kwargs, k, v);
  }
  return { args, kwargs };
}

/**
 * The `arg` list for positional values and keyword arguments: the values, then one trailing
 * kwarg dict when there are keyword arguments.
 *
 * @example
 * packArgs(['a'], { b: 2 }) // ['a', { __kwarg__: true, b: 2 }]
 * packArgs(['a'], {}) // ['a']
 */
export function packArgs(args: readonly unknown[], kwargs: Record<string, unknown> | ReadonlyMap<string, unknown> = {}): unknown[] {
  const entries = kwargs instanceof Map ? [...kwargs.entries()] : Object.entries(kwargs);
  if (entries.length === 0) return [...args];
  const map = { __kwarg__: true } as KwargMap;
  for (const [k, v] of entries) if (k !== '__kwarg__') setOwn(map, k, v);
  return [...args, map];
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
