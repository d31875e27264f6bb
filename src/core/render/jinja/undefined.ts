/**
 * Jinja's StrictUndefined, as Salt configures Jinja: looking up a missing name or key gives an
 * Undefined value that may be tested (`is defined`, `| default`) but fails as soon as it is
 * printed, iterated, compared or looked into, with Jinja's own message.
 */
import { isMapping } from '../../pycompat';

export class Undefined {
  constructor(
    /** Jinja's hint: `'x' is undefined` or `'dict object' has no attribute 'y'`. */
    readonly hint: string,
  ) {}
}

/** Raised when an Undefined is used; `line` is the template line (1-based) when known. */
export class UndefinedError extends Error {
  constructor(
    message: string,
    public line?: number,
  ) {
    super(message);
    this.name = 'UndefinedError';
  }
}

export function isUndefined(value: unknown): value is Undefined {
  return value instanceof Undefined;
}

/** Throw Jinja's UndefinedError for `value` if it is Undefined; otherwise return it. */
export function strict<T>(value: T, line?: number): T {
  if (value instanceof Undefined) throw new UndefinedError(value.hint, line);
  return value;
}

/** Jinja's `object_type_repr`: how a missing attribute's owner is named. */
export function objectTypeRepr(obj: unknown): string {
  if (obj === null || obj === undefined) return 'None';
  if (typeof obj === 'string') return 'str object';
  if (typeof obj === 'boolean') return 'bool object';
  if (typeof obj === 'number') return Number.isInteger(obj) ? 'int object' : 'float object';
  if (Array.isArray(obj)) return 'list object';
  if (isMapping(obj)) return 'dict object';
  if (typeof obj === 'function') return 'function object';
  return `${(obj as object).constructor?.name ?? 'object'} object`;
}

export function missingName(name: string): Undefined {
  return new Undefined(`'${name}' is undefined`);
}

export function missingMember(obj: unknown, key: unknown): Undefined {
  if (obj === null || obj === undefined) return new Undefined(`'None' has no attribute '${String(key)}'`);
  if (typeof key === 'string') return new Undefined(`'${objectTypeRepr(obj)}' has no attribute '${key}'`);
  return new Undefined(`'${objectTypeRepr(obj)}' has no element ${String(key)}`);
}
