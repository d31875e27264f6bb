import { CommandExecutionError, Fn, IConfig, IPillar, Module, arg, dictUpdate, inject, isDict, pyTypeName, traverse } from 'brine/plugin';

type Dict = Record<string, unknown>;

const KEY_ERROR = Symbol('KeyError');

function optionalString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

const GET_ARGS = {
  key: arg.string(),
  default: arg.any({ default: '' }),
  merge: arg.boolean({ default: false }),
  merge_nested_lists: arg.any({ default: null }),
  delimiter: arg.string({ default: ':' }),
  pillarenv: arg.any({ default: null }),
  saltenv: arg.any({ default: null }),
};

interface GetArgs {
  key: string;
  default: unknown;
  merge: boolean;
  merge_nested_lists: unknown;
  delimiter: string;
  pillarenv: unknown;
  saltenv: unknown;
}

/**
 * Salt's `pillar` execution module: the minion's pillar, compiled by its master for it alone
 * (or by the minion itself with `file_client: local`).
 */
@Module('pillar', { doc: "The minion's pillar: data its master compiled for it alone" })
export class PillarModule {
  constructor(
    @inject(IPillar) private readonly pillar: IPillar,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  /** What `item`/`get` read: the held pillar, or a fresh compile for another saltenv. */
  private async source(saltenv: unknown, pillarenv: unknown): Promise<Dict> {
    if (saltenv === null || saltenv === undefined) return this.pillar.current();
    return this.pillar.compile({ saltenv: optionalString(saltenv), pillarenv: optionalString(pillarenv) });
  }

  @Fn({
    summary: 'Compile the pillar afresh and return it; with key names, the same as pillar.item',
    description: 'Keyword arguments: pillar (a dict merged over the compiled pillar, the command-line override), pillarenv, saltenv.',
    examples: ["salt '*' pillar.items", 'salt \'*\' pillar.items pillar=\'{"k": "v"}\''],
    args: {},
    varargs: 'keys',
    kwargs: true,
  })
  async items({ keys, kwargs }: { keys: unknown[]; kwargs: Dict }): Promise<unknown> {
    if (keys.length > 0) return this.item({ keys, kwargs });
    const override = kwargs.pillar;
    if (override !== undefined && override !== null && !isDict(override)) {
      throw new CommandExecutionError('Pillar data must be formatted as a dictionary');
    }
    let pillarenv = optionalString(kwargs.pillarenv);
    if (pillarenv === null && this.config.get<unknown>('pillarenv_from_saltenv', false) === true) {
      pillarenv = optionalString(kwargs.saltenv) ?? optionalString(this.config.get<unknown>('saltenv', null));
    } else if (pillarenv === null) pillarenv = optionalString(this.config.get<unknown>('pillarenv', null));
    return this.pillar.compile({ pillarenv, saltenv: optionalString(kwargs.saltenv), override: isDict(override) ? override : undefined });
  }

  @Fn({
    summary: 'Same as pillar.items, with every value replaced by its type name (keys are kept)',
    examples: ["salt '*' pillar.obfuscate"],
    args: {},
    varargs: 'keys',
    kwargs: true,
  })
  async obfuscate(a: { keys: unknown[]; kwargs: Dict }): Promise<unknown> {
    return obfuscated(await this.items(a));
  }

  @Fn({ summary: 'Alias of pillar.items', examples: ["salt '*' pillar.data"], args: {}, varargs: 'keys', kwargs: true })
  data(a: { keys: unknown[]; kwargs: Dict }): Promise<unknown> {
    return this.items(a);
  }

  @Fn({
    summary: "Return one or more entries of the minion's pillar, walking nested keys with ':'",
    description: 'Keyword arguments: default (the value of a missing key), delimiter, pillarenv, saltenv.',
    examples: ["salt '*' pillar.item foo bar:baz"],
    args: {},
    varargs: 'keys',
    kwargs: true,
  })
  async item({ keys, kwargs }: { keys: unknown[]; kwargs: Dict }): Promise<Dict> {
    const dflt = 'default' in kwargs ? kwargs.default : '';
    const delimiter = typeof kwargs.delimiter === 'string' ? kwargs.delimiter : ':';
    const pillar = await this.source(kwargs.saltenv, kwargs.pillarenv);
    const ret: Dict = {};
    for (const key of keys) ret[String(key)] = traverse(pillar, String(key), dflt, delimiter);
    return ret;
  }

  @Fn({
    summary: "Return a pillar value, walking nested keys with ':' (or delimiter); default when missing",
    description: 'merge=True with a dict (or list) default merges the value into a copy of the default.',
    examples: ["salt '*' pillar.get pkg:apache", "salt '*' pillar.get abc/def delimiter=/ default=none"],
    args: GET_ARGS,
  })
  async get(a: GetArgs): Promise<unknown> {
    const pillar = await this.source(a.saltenv, a.pillarenv);
    if (a.merge) {
      if (isDict(a.default)) {
        const found = traverse(pillar, a.key, {}, a.delimiter);
        if (isDict(found)) {
          const mergeLists =
            a.merge_nested_lists === null ? this.config.get<unknown>('pillar_merge_lists', false) === true : a.merge_nested_lists === true;
          return dictUpdate(structuredClone(a.default), found, { mergeLists });
        }
      } else if (Array.isArray(a.default)) {
        const found = traverse(pillar, a.key, [], a.delimiter);
        if (Array.isArray(found)) return [...a.default, ...found];
      }
    }
    return traverse(pillar, a.key, a.default, a.delimiter);
  }

  @Fn({ summary: 'Alias of pillar.get', examples: ["salt '*' pillar.fetch pkg:apache"], args: GET_ARGS })
  fetch(a: GetArgs): Promise<unknown> {
    return this.get(a);
  }

  @Fn({
    summary: 'Return the pillar this minion holds, without compiling it again; with a key, its value ({} when missing)',
    examples: ["salt '*' pillar.raw", "salt '*' pillar.raw key=roles"],
    args: { key: arg.any({ default: null }) },
  })
  async raw({ key }: { key: unknown }): Promise<unknown> {
    const pillar = await this.pillar.current();
    if (key === null || key === undefined || key === '') return pillar;
    return Object.prototype.hasOwnProperty.call(pillar, String(key)) ? pillar[String(key)] : {};
  }

  @Fn({
    summary: 'List the top-level keys of a freshly compiled pillar',
    examples: ["salt '*' pillar.ls"],
    args: {},
    varargs: 'keys',
    kwargs: true,
  })
  async ls(a: { keys: unknown[]; kwargs: Dict }): Promise<string[]> {
    return Object.keys((await this.items(a)) as Dict);
  }

  @Fn({
    summary: 'List the keys of the dict at a pillar key',
    examples: ["salt '*' pillar.keys web:sites"],
    args: { key: arg.string(), delimiter: arg.string({ default: ':' }) },
  })
  async keys({ key, delimiter }: { key: string; delimiter: string }): Promise<string[]> {
    const value = traverse(await this.pillar.current(), key, KEY_ERROR, delimiter);
    if (value === KEY_ERROR) throw new CommandExecutionError(`Pillar key not found: ${key}`);
    if (!isDict(value)) throw new CommandExecutionError(`Pillar value in key ${key} is not a dict`);
    return Object.keys(value);
  }

  @Fn({
    summary: "Whether the key exists in the pillar (nested keys with ':')",
    examples: ["salt '*' pillar.has_key web:sites"],
    args: { key: arg.string(), delimiter: arg.string({ default: ':' }) },
  })
  async has_key({ key, delimiter }: { key: string; delimiter: string }): Promise<boolean> {
    return traverse(await this.pillar.current(), key, KEY_ERROR, delimiter) !== KEY_ERROR;
  }
}

/** Salt's _obfuscate_inner: leaves become `<type>`, mappings keep their keys, lists their length. */
function obfuscated(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(obfuscated);
  if (isDict(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, obfuscated(v)]));
  return `<${pyTypeName(value)}>`;
}
