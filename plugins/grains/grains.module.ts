import { Fn, IGrains, InvocationError, Module, arg, inject, isDict, pyEqual, pyStr } from 'brine/plugin';
import { filterBy } from './filter-by';

const MISSING = Symbol('missing');

@Module('grains', { doc: 'Return and set the grains of this minion' })
export class GrainsModule {
  constructor(@inject(IGrains) private readonly grains: IGrains) {}

  @Fn({ args: {}, summary: "Return all of the minion's grains", examples: ["salt '*' grains.items"] })
  items(): Record<string, unknown> {
    return this.grains.all();
  }

  @Fn({
    summary: 'Return one or more grains',
    description: 'Keyword arguments: default (the value of a missing grain), delimiter.',
    examples: ["salt '*' grains.item os", "salt '*' grains.item os osrelease oscodename"],
    args: {},
    varargs: 'keys',
    kwargs: true,
  })
  item({ keys, kwargs }: { keys: unknown[]; kwargs: Record<string, unknown> }): Record<string, unknown> {
    const defaultValue = kwargs.default ?? '';
    const delimiter = typeof kwargs.delimiter === 'string' ? kwargs.delimiter : ':';
    const ret: Record<string, unknown> = {};
    for (const key of keys) ret[String(key)] = this.grains.get(String(key), defaultValue, delimiter);
    return ret;
  }

  @Fn({
    summary: "Get a grain, walking nested data with the delimiter (default ':')",
    examples: ["salt '*' grains.get pkg:apache"],
    args: { key: arg.string(), default: arg.any({ default: '' }), delimiter: arg.string({ default: ':' }) },
  })
  get({ key, default: fallback, delimiter }: { key: string; default: unknown; delimiter: string }): unknown {
    return this.grains.get(key, fallback, delimiter);
  }

  @Fn({
    summary: 'Alias of grains.get',
    examples: ["salt '*' grains.fetch pkg:apache"],
    args: { key: arg.string(), default: arg.any({ default: '' }), delimiter: arg.string({ default: ':' }) },
  })
  fetch({ key, default: fallback, delimiter }: { key: string; default: unknown; delimiter: string }): unknown {
    return this.grains.get(key, fallback, delimiter);
  }

  @Fn({
    summary: "Whether the grain's value, as text, equals the value given (Salt compares str() of both)",
    examples: ["salt '*' grains.equals fqdn <expected_fqdn>", "salt '*' grains.equals systemd:version 219"],
    args: { key: arg.string(), value: arg.any() },
  })
  equals({ key, value }: { key: string; value: unknown }): boolean {
    return pyStr(value) === pyStr(this.grains.get(key, ''));
  }

  @Fn({ args: {}, summary: 'Return the grain names, sorted', examples: ["salt '*' grains.ls"] })
  ls(): string[] {
    return Object.keys(this.grains.all()).sort();
  }

  @Fn({
    summary: "Whether a grain exists (nested keys with ':')",
    examples: ["salt '*' grains.has_value pkg:apache"],
    args: { key: arg.string() },
  })
  has_value({ key }: { key: string }): boolean {
    return this.grains.get(key, MISSING) !== MISSING;
  }

  @Fn({
    summary: 'Set a static grain, stored in the grains file of the config dir',
    examples: ["salt '*' grains.setval key val"],
    args: { key: arg.string({ nonEmpty: true }), val: arg.any(), destructive: arg.boolean({ default: false }) },
  })
  async setval({ key, val, destructive }: { key: string; val: unknown; destructive: boolean }): Promise<Record<string, unknown>> {
    return this.setvals({ grains: { [key]: val }, destructive });
  }

  @Fn({
    summary: 'Set several static grains at once',
    examples: [`salt '*' grains.setvals "{'key1': 'val1', 'key2': 'val2'}"`],
    args: { grains: arg.any(), destructive: arg.boolean({ default: false }) },
  })
  async setvals({ grains, destructive }: { grains: unknown; destructive: boolean }): Promise<Record<string, unknown>> {
    // Salt's own wording for a value that is not a dict.
    if (typeof grains !== 'object' || grains === null || Array.isArray(grains)) {
      throw new InvocationError('setvals grains must be a dictionary.');
    }
    const values = grains as Record<string, unknown>;
    // Salt: a None value with destructive=True removes the grain instead of storing None.
    const remove = destructive ? Object.keys(values).filter((k) => values[k] === null) : [];
    const keep = Object.fromEntries(Object.entries(values).filter(([k]) => !remove.includes(k)));
    if (Object.keys(keep).length > 0) await this.grains.setStatic(keep);
    if (remove.length > 0) await this.grains.deleteStatic(remove);
    return values;
  }

  @Fn({
    summary: 'Set a grain, nested keys included, stored in the grains file of the config dir',
    description:
      "Conservative, as Salt's: an existing dict or list, or a dict or list over an existing value, is replaced only with force=True. " +
      'Returns {comment, changes, result}.',
    examples: ["salt '*' grains.set 'apps:myApp:port' 2209", "salt '*' grains.set 'apps:myApp' '{port: 2209}'"],
    args: {
      key: arg.string({ nonEmpty: true }),
      val: arg.any({ default: '' }),
      force: arg.boolean({ default: false }),
      destructive: arg.boolean({ default: false }),
      delimiter: arg.string({ default: ':', nonEmpty: true }),
    },
  })
  async set(a: { key: string; val: unknown; force: boolean; destructive: boolean; delimiter: string }): Promise<Record<string, unknown>> {
    const { val, force, destructive, delimiter } = a;
    const ret: Record<string, unknown> = { comment: '', changes: {}, result: true };
    const complex = (v: unknown): boolean => Array.isArray(v) || isDict(v);
    const existing = this.grains.get(a.key, MISSING, delimiter);
    if (existing !== MISSING && pyEqual(existing, val) && (val !== null || !destructive)) {
      ret.comment = 'Grain is already set';
      return ret;
    }
    if (existing !== null && existing !== MISSING && !force) {
      if (complex(existing))
        return { ...ret, result: false, comment: `The key '${a.key}' exists but is a dict or a list. Use 'force=True' to overwrite.` };
      if (complex(val))
        return {
          ...ret,
          result: false,
          comment: `The key '${a.key}' exists and the given value is a dict or a list. Use 'force=True' to overwrite.`,
        };
    }
    // Salt writes a nested key back through its parents, up to the top-level grain it stores.
    let key = a.key;
    let value = val;
    while (key.includes(delimiter)) {
      const at = key.lastIndexOf(delimiter);
      const rest = key.slice(at + delimiter.length);
      key = key.slice(0, at);
      const parent = this.grains.get(key, {}, delimiter);
      if (isDict(parent)) {
        if (value === null && destructive) delete parent[rest];
        else parent[rest] = value;
        value = parent;
      } else if (Array.isArray(parent)) {
        let updated = false;
        const list = parent.map((item) => {
          if (pyEqual(item, rest)) {
            updated = true;
            return { [rest]: value };
          }
          if (isDict(item) && Object.hasOwn(item, rest)) {
            updated = true;
            return { ...item, [rest]: value };
          }
          return item;
        });
        if (!updated) list.push({ [rest]: value });
        value = list;
      } else if (pyEqual(parent, rest) || force) {
        value = { [rest]: value };
      } else {
        return {
          ...ret,
          result: false,
          comment: `The key '${key}' value is '${pyStr(parent)}', which is different from the provided key '${rest}'. Use 'force=True' to overwrite.`,
        };
      }
    }
    ret.changes = await this.setval({ key, val: value, destructive });
    return ret;
  }

  @Fn({
    summary: 'Set a grain to None (grains.set with val=None), or remove it with destructive=True',
    examples: ["salt '*' grains.delval key"],
    args: { key: arg.string({ nonEmpty: true }), destructive: arg.boolean({ default: false }), force: arg.boolean({ default: false }) },
  })
  async delval({ key, destructive, force }: { key: string; destructive: boolean; force: boolean }): Promise<Record<string, unknown>> {
    return this.set({ key, val: null, destructive, force, delimiter: ':' });
  }

  @Fn({
    summary: 'Remove a grain completely (grains.delval with destructive=True); force removes a dict or list grain',
    examples: ["salt '*' grains.delkey key"],
    args: { key: arg.string({ nonEmpty: true }), force: arg.boolean({ default: false }) },
  })
  async delkey({ key, force }: { key: string; force: boolean }): Promise<Record<string, unknown>> {
    return this.delval({ key, destructive: true, force });
  }

  /** Salt writes a nested list back through its parents: `a:b` becomes `{a: {...a, b: list}}`. */
  private async storeNested(key: string, value: unknown, delimiter: string): Promise<Record<string, unknown>> {
    let k = key;
    let v = value;
    while (k.includes(delimiter)) {
      const at = k.lastIndexOf(delimiter);
      const rest = k.slice(at + delimiter.length);
      k = k.slice(0, at);
      const parent = this.grains.get(k, {}, delimiter);
      if (typeof parent === 'object' && parent !== null && !Array.isArray(parent)) {
        v = { ...(parent as Record<string, unknown>), [rest]: v };
      } else {
        v = parent;
      }
    }
    return this.setval({ key: k, val: v, destructive: false });
  }

  @Fn({
    summary: 'Append a value (or each value of a list) to a list grain, stored as a static grain',
    examples: ["salt '*' grains.append key val"],
    args: {
      key: arg.string({ nonEmpty: true }),
      val: arg.any(),
      convert: arg.boolean({ default: false }),
      delimiter: arg.string({ default: ':', nonEmpty: true }),
    },
  })
  async append(a: { key: string; val: unknown; convert: boolean; delimiter: string }): Promise<unknown> {
    const { key, val, convert, delimiter: delim } = a;
    let grains = this.grains.get(key, [], delim);
    if (convert && !Array.isArray(grains)) grains = grains === null ? [] : [grains];
    if (!Array.isArray(grains)) return `The key ${key} is not a valid list`;
    const list = [...grains];
    for (const item of Array.isArray(val) ? val : [val]) {
      if (list.some((g) => pyEqual(g, item))) return `The val ${pyStr(item)} was already in the list ${key}`;
      list.push(item);
    }
    return this.storeNested(key, list, delim);
  }

  @Fn({
    summary: 'Remove a value from a list grain, stored as a static grain',
    examples: ["salt '*' grains.remove key val"],
    args: { key: arg.string({ nonEmpty: true }), val: arg.any(), delimiter: arg.string({ default: ':', nonEmpty: true }) },
  })
  async remove({ key, val, delimiter: delim }: { key: string; val: unknown; delimiter: string }): Promise<unknown> {
    const grains = this.grains.get(key, [], delim);
    if (!Array.isArray(grains)) return `The key ${key} is not a valid list`;
    const at = grains.findIndex((g) => pyEqual(g, val));
    if (at === -1) return `The val ${pyStr(val)} was not in the list ${key}`;
    const list = [...grains.slice(0, at), ...grains.slice(at + 1)];
    return this.storeNested(key, list, delim);
  }

  @Fn({
    summary: "Pick the entry of lookup_dict whose key (a glob) matches the grain's value",
    description: "The grain is os_family unless given; no match picks the 'default' entry. base is merged under the entry, merge over it.",
    examples: [
      "salt '*' grains.filter_by '{Debian: Debheads rule, RedHat: I love my hat}'",
      "salt '*' grains.filter_by '{A: B, C: {D: {E: F, G: H}}}' 'xxx' '{D: {E: I, J: K}}' 'C'",
    ],
    args: {
      lookup_dict: arg.dict(),
      grain: arg.string({ default: 'os_family' }),
      merge: arg.any({ optional: true }),
      default: arg.string({ default: 'default' }),
      base: arg.any({ optional: true }),
    },
  })
  filter_by(a: { lookup_dict: Record<string, unknown>; grain: string; merge?: unknown; default: string; base?: unknown }): unknown {
    return filterBy(a.lookup_dict, this.grains.get(a.grain, []), { merge: a.merge ?? null, default: a.default, base: a.base ?? null });
  }
}
