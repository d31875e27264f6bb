import { Fn, IGrains, InvocationError, Module, inject, pyEqual, pyStr } from 'brine/plugin';
import { filterBy } from './filter-by';

const MISSING = Symbol('missing');

@Module('grains', { doc: 'Return and set the grains of this minion' })
export class GrainsModule {
  constructor(@inject(IGrains) private readonly grains: IGrains) {}

  @Fn({ doc: "Return all of the minion's grains\n\nCLI Example:\n\n    salt '*' grains.items" })
  items(): Record<string, unknown> {
    return this.grains.all();
  }

  @Fn({ doc: "Return one or more grains (keyword arguments: default, delimiter)\n\nCLI Example:\n\n    salt '*' grains.item os\n    salt '*' grains.item os osrelease oscodename" })
  item(kwargs: Record<string, unknown>, ...keys: unknown[]): Record<string, unknown> {
    const defaultValue = kwargs.default ?? '';
    const delimiter = typeof kwargs.delimiter === 'string' ? kwargs.delimiter : ':';
    const ret: Record<string, unknown> = {};
    for (const key of keys) ret[String(key)] = this.grains.get(String(key), defaultValue, delimiter);
    return ret;
  }

  // `default` is a reserved word in JS, so the parameter names are given explicitly.
  @Fn({ args: ['key', 'default?', 'delimiter?'], doc: "Get a grain, walking nested data with the delimiter (default ':')\n\nCLI Example:\n\n    salt '*' grains.get pkg:apache" })
  get(key: unknown, default_: unknown = '', delimiter: unknown = ':'): unknown {
    if (typeof key !== 'string') throw new InvocationError('key must be a string');
    return this.grains.get(key, default_, typeof delimiter === 'string' ? delimiter : ':');
  }

  @Fn({ doc: "Return the grain names, sorted\n\nCLI Example:\n\n    salt '*' grains.ls" })
  ls(): string[] {
    return Object.keys(this.grains.all()).sort();
  }

  @Fn({ doc: "Whether a grain exists (nested keys with ':')\n\nCLI Example:\n\n    salt '*' grains.has_value pkg:apache" })
  has_value(key: unknown): boolean {
    if (typeof key !== 'string') throw new InvocationError('key must be a string');
    return this.grains.get(key, MISSING) !== MISSING;
  }

  @Fn({ doc: "Set a static grain, stored in the grains file of the config dir\n\nCLI Example:\n\n    salt '*' grains.setval key val" })
  async setval(key: unknown, val: unknown, destructive: unknown = false): Promise<Record<string, unknown>> {
    if (typeof key !== 'string' || key === '') throw new InvocationError('key must be a non-empty string');
    return this.setvals({ [key]: val }, destructive);
  }

  @Fn({ doc: "Set several static grains at once\n\nCLI Example:\n\n    salt '*' grains.setvals \"{'key1': 'val1', 'key2': 'val2'}\"" })
  async setvals(grains: unknown, destructive: unknown = false): Promise<Record<string, unknown>> {
    if (typeof grains !== 'object' || grains === null || Array.isArray(grains)) {
      throw new InvocationError('setvals grains must be a dictionary.');
    }
    const values = grains as Record<string, unknown>;
    // Salt: a None value with destructive=True removes the grain instead of storing None.
    const remove = destructive === true ? Object.keys(values).filter((k) => values[k] === null) : [];
    const keep = Object.fromEntries(Object.entries(values).filter(([k]) => !remove.includes(k)));
    if (Object.keys(keep).length > 0) await this.grains.setStatic(keep);
    if (remove.length > 0) await this.grains.deleteStatic(remove);
    return values;
  }

  @Fn({ doc: "Set a grain to None, or remove it with destructive=True\n\nCLI Example:\n\n    salt '*' grains.delval key" })
  async delval(key: unknown, destructive: unknown = false): Promise<Record<string, unknown>> {
    return this.setval(key, null, destructive);
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
    return this.setval(k, v);
  }

  @Fn({ doc: "Append a value (or each value of a list) to a list grain, stored as a static grain\n\nCLI Example:\n\n    salt '*' grains.append key val" })
  async append(key: unknown, val: unknown, convert: unknown = false, delimiter: unknown = ':'): Promise<unknown> {
    if (typeof key !== 'string' || key === '') throw new InvocationError('key must be a non-empty string');
    const delim = typeof delimiter === 'string' && delimiter !== '' ? delimiter : ':';
    let grains = this.grains.get(key, [], delim);
    if (convert === true && !Array.isArray(grains)) grains = grains === null ? [] : [grains];
    if (!Array.isArray(grains)) return `The key ${key} is not a valid list`;
    const list = [...grains];
    for (const item of Array.isArray(val) ? val : [val]) {
      if (list.some((g) => pyEqual(g, item))) return `The val ${pyStr(item)} was already in the list ${key}`;
      list.push(item);
    }
    return this.storeNested(key, list, delim);
  }

  @Fn({ doc: "Remove a value from a list grain, stored as a static grain\n\nCLI Example:\n\n    salt '*' grains.remove key val" })
  async remove(key: unknown, val: unknown, delimiter: unknown = ':'): Promise<unknown> {
    if (typeof key !== 'string' || key === '') throw new InvocationError('key must be a non-empty string');
    const delim = typeof delimiter === 'string' && delimiter !== '' ? delimiter : ':';
    const grains = this.grains.get(key, [], delim);
    if (!Array.isArray(grains)) return `The key ${key} is not a valid list`;
    const at = grains.findIndex((g) => pyEqual(g, val));
    if (at === -1) return `The val ${pyStr(val)} was not in the list ${key}`;
    const list = [...grains.slice(0, at), ...grains.slice(at + 1)];
    return this.storeNested(key, list, delim);
  }

  @Fn({
    args: ['lookup_dict', 'grain?', 'merge?', 'default?', 'base?'],
    doc: "Pick the entry of lookup_dict whose key (a glob) matches the grain's value (default grain os_family), else the 'default' entry; base is merged under it, merge over it\n\nCLI Example:\n\n    salt '*' grains.filter_by '{Debian: Debheads rule, RedHat: I love my hat}'\n    salt '*' grains.filter_by '{A: B, C: {D: {E: F, G: H}}}' 'xxx' '{D: {E: I, J: K}}' 'C'",
  })
  filter_by(lookup_dict: unknown, grain: unknown = 'os_family', merge: unknown = null, default_: unknown = 'default', base: unknown = null): unknown {
    if (typeof lookup_dict !== 'object' || lookup_dict === null || Array.isArray(lookup_dict)) {
      throw new InvocationError('lookup_dict must be a dictionary');
    }
    const grainName = typeof grain === 'string' ? grain : 'os_family';
    return filterBy(lookup_dict as Record<string, unknown>, this.grains.get(grainName, []), {
      merge,
      default: typeof default_ === 'string' ? default_ : 'default',
      base,
    });
  }
}
