import { encode } from '../protocol/msgpack';

/** Values smaller than this (as msgpack) are kept per minion: a table entry would cost more. */
const MIN_SHARED_BYTES = 24;

/**
 * The copy of `text` in V8's string table, where every property name is: a computed key is
 * internalized, and for-in hands back the table's copy. So a short grain value that many minions
 * send alike ('Debian', 'x86_64', '/bin/bash': 40 bytes of heap each as the decoder made them) is
 * held once, with no entry of ours; the table holds its strings weakly, so a value no minion
 * keeps any more is collected, and one unique to a minion (its host name) costs what it did.
 */
function internString(text: string): string {
  for (const key in { [text]: 0 }) return key;
  return text;
}

/**
 * `value` with its strings internalized, arrays and plain objects changed in place (the decoder's
 * own, not yet seen by anyone): the small values a minion keeps as its own, and the parts of a
 * large one that is its own as a whole (`ip_interfaces` with its addresses).
 */
function internStrings(value: unknown): unknown {
  if (typeof value === 'string') return internString(value);
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = internStrings(value[i]);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const out = internStrings(record[key]);
      // defineProperty: assigning to `__proto__` would set the prototype instead.
      if (key === '__proto__') Object.defineProperty(record, key, { value: out, enumerable: true, writable: true, configurable: true });
      else record[key] = out;
    }
  }
  return value;
}

/** One empty list and one empty map for all minions: grains are full of them (gpus, ssds, fqdns...). */
const EMPTY_LIST: readonly unknown[] = Object.freeze([]);
const EMPTY_MAP: Readonly<Record<string, unknown>> = Object.freeze({});

/** The shared empty list or map when `value` is a plain empty one the decoder made, else undefined. */
function sharedEmpty(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) return value.length === 0 && Object.getPrototypeOf(value) === Array.prototype ? EMPTY_LIST : undefined;
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  for (const _ in value) return undefined;
  return Object.getOwnPropertySymbols(value).length === 0 ? EMPTY_MAP : undefined;
}

/**
 * One copy of each grain value that several minions send alike (os, kernel, cpu_flags, path,
 * systemd, ...), counted by reference. A fleet's grains are mostly the same values: kept as each
 * minion's own decoded objects they cost ~16 KiB of heap per minion (160 MiB at 10,000), shared
 * they cost the per-minion values and one object per property. Values are keyed by their msgpack
 * bytes, which is exact for what msgpack decoding yields (the same bytes decode to the same
 * types), and frozen: a consumer that tried to change one minion's grains would change them all.
 * A minion's own values keep their strings in V8's string table (internString): one copy of each
 * short string however many minions send it, and an empty list or map is one frozen value for all
 * (32 bytes each a minion otherwise: four or five in a Linux minion's grains).
 */
export class SharedValues {
  private readonly byBytes = new Map<string, SharedValue>();

  /**
   * `record` with its large values replaced by the shared copies, and the references to give back
   * to {@link release} when the record is replaced or dropped. The references are the table's own
   * entries, not the msgpack strings each record was looked up by: a fleet's copies of those
   * strings (10,000 minions' cpu_flags, kernelparams, path...) were 2.6 KiB a minion.
   */
  share(record: Record<string, unknown>): { shared: Record<string, unknown>; refs: SharedValue[] } {
    const shared: Record<string, unknown> = {};
    const refs: SharedValue[] = [];
    for (const [name, value] of Object.entries(record)) {
      let out: unknown;
      const key =
        value !== null && (typeof value === 'object' || (typeof value === 'string' && value.length >= MIN_SHARED_BYTES))
          ? encode(value).toString('latin1')
          : '';
      if (key.length >= MIN_SHARED_BYTES) {
        let entry = this.byBytes.get(key);
        if (entry === undefined) {
          entry = { key, value: deepFreeze(internStrings(value)), refs: 0 };
          this.byBytes.set(key, entry);
        }
        entry.refs++;
        refs.push(entry);
        out = entry.value;
      } else {
        out = sharedEmpty(value) ?? internStrings(value);
      }
      // defineProperty for a `__proto__` grain alone, which stays a plain property as the decoder
      // made it: for every name it cost a fifth of share() (62 -> 49 µs for a Linux minion's grains).
      if (name === '__proto__') Object.defineProperty(shared, name, { value: out, enumerable: true, writable: true, configurable: true });
      else shared[name] = out;
    }
    return { shared, refs };
  }

  release(refs: readonly SharedValue[]): void {
    for (const entry of refs) {
      if (--entry.refs === 0) this.byBytes.delete(entry.key);
    }
  }

  /** Distinct values held (for tests and the bench). */
  get size(): number {
    return this.byBytes.size;
  }
}

/** One shared value, as {@link SharedValues.share} hands it out: opaque outside this file. */
export interface SharedValue {
  readonly key: string;
  readonly value: unknown;
  refs: number;
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
  } else {
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return Object.freeze(value);
}
