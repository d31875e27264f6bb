import { Fn, IGrains, InvocationError, Module, inject } from 'brine/plugin';

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
}
