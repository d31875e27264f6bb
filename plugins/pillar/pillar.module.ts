import { CommandExecutionError, Fn, IConfig, IPillar, Module, dictUpdate, inject, traverse } from 'brine/plugin';

type Dict = Record<string, unknown>;

const KEY_ERROR = Symbol('KeyError');

/** Salt's parameter names (`default` is a word TypeScript keeps for itself). */
const GET_ARGS = ['key', 'default?', 'merge?', 'merge_nested_lists?', 'delimiter?', 'pillarenv?', 'saltenv?'];

function isDict(v: unknown): v is Dict {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function optionalString(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/**
 * Salt's `pillar` execution module: the minion's pillar, compiled by its master for it alone
 * (or by the minion itself with `file_client: local`).
 */
@Module('pillar')
export class PillarModule {
  constructor(
    @inject(IPillar) private readonly pillar: IPillar,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  /** The pillar `items`/`item` read: the held one, or a fresh compile for another saltenv. */
  private async source(saltenv: unknown, pillarenv: unknown): Promise<Dict> {
    if (saltenv === null || saltenv === undefined) return this.pillar.current();
    return this.pillar.compile({ saltenv: optionalString(saltenv), pillarenv: optionalString(pillarenv) });
  }

  @Fn({
    doc: "Compile the pillar afresh and return it. With key names, the same as pillar.item.\n\npillar: a dict merged over the compiled pillar (the command-line override)\npillarenv: compile only this pillar environment\n\nCLI Example:\n\n    salt '*' pillar.items\n    salt '*' pillar.items pillar='{\"k\": \"v\"}'",
    args: ['...args', 'kwargs'],
  })
  async items(...rest: unknown[]): Promise<unknown> {
    const kwargs = (isDict(rest[rest.length - 1]) ? rest.pop() : {}) as Dict;
    if (rest.length > 0) return this.item(...rest, kwargs);
    const override = kwargs.pillar;
    if (override !== undefined && override !== null && !isDict(override)) {
      throw new CommandExecutionError('Pillar data must be formatted as a dictionary');
    }
    let pillarenv = optionalString(kwargs.pillarenv);
    if (pillarenv === null && this.config.get<unknown>('pillarenv_from_saltenv', false) === true) pillarenv = optionalString(kwargs.saltenv) ?? optionalString(this.config.get('saltenv', null));
    else if (pillarenv === null) pillarenv = optionalString(this.config.get('pillarenv', null));
    return this.pillar.compile({ pillarenv, saltenv: optionalString(kwargs.saltenv), override: isDict(override) ? override : undefined });
  }

  @Fn({ doc: "Alias of pillar.items\n\nCLI Example:\n\n    salt '*' pillar.data", args: ['...args', 'kwargs'] })
  data(...rest: unknown[]): Promise<unknown> {
    return this.items(...rest);
  }

  @Fn({
    doc: "Return one or more pillar entries from the minion's pillar, walking nested keys with ':'\n\nCLI Example:\n\n    salt '*' pillar.item foo bar:baz",
    args: ['...args', 'kwargs'],
  })
  async item(...rest: unknown[]): Promise<Dict> {
    const kwargs = (isDict(rest[rest.length - 1]) ? rest.pop() : {}) as Dict;
    const dflt = 'default' in kwargs ? kwargs.default : '';
    const delimiter = typeof kwargs.delimiter === 'string' ? kwargs.delimiter : ':';
    const pillar = await this.source(kwargs.saltenv, kwargs.pillarenv);
    const ret: Dict = {};
    for (const key of rest) ret[String(key)] = traverse(pillar, String(key), dflt, delimiter);
    return ret;
  }

  @Fn({
    doc: "Return a pillar value, walking nested keys with ':' (or delimiter); default when missing.\n\nmerge: with a dict (or list) default, merge the value into a copy of the default\n\nCLI Example:\n\n    salt '*' pillar.get pkg:apache\n    salt '*' pillar.get abc/def delimiter=/ default=none",
    args: GET_ARGS,
  })
  async get(
    key: string,
    default_: unknown = '',
    merge: unknown = false,
    merge_nested_lists: unknown = null,
    delimiter: unknown = ':',
    pillarenv: unknown = null,
    saltenv: unknown = null,
  ): Promise<unknown> {
    const delim = typeof delimiter === 'string' ? delimiter : ':';
    const pillar = await this.source(saltenv, pillarenv);
    if (merge === true || merge === 'True' || merge === 'true') {
      if (isDict(default_)) {
        const found = traverse(pillar, String(key), {}, delim);
        if (isDict(found)) {
          const mergeLists = merge_nested_lists === null ? this.config.get<unknown>('pillar_merge_lists', false) === true : merge_nested_lists === true;
          return mergeLists ? mergeWithLists(structuredClone(default_), found) : dictUpdate(structuredClone(default_), found);
        }
      } else if (Array.isArray(default_)) {
        const found = traverse(pillar, String(key), [], delim);
        if (Array.isArray(found)) return [...default_, ...found];
      }
    }
    return traverse(pillar, String(key), default_, delim);
  }

  @Fn({ doc: "Alias of pillar.get\n\nCLI Example:\n\n    salt '*' pillar.fetch pkg:apache", args: GET_ARGS })
  fetch(key: string, default_: unknown = '', merge: unknown = false, merge_nested_lists: unknown = null, delimiter: unknown = ':', pillarenv: unknown = null, saltenv: unknown = null): Promise<unknown> {
    return this.get(key, default_, merge, merge_nested_lists, delimiter, pillarenv, saltenv);
  }

  @Fn({ doc: "Return the pillar this minion holds, without compiling it again; with a key, that key's value ({} when missing)\n\nCLI Example:\n\n    salt '*' pillar.raw\n    salt '*' pillar.raw key=roles" })
  async raw(key: unknown = null): Promise<unknown> {
    const pillar = await this.pillar.current();
    if (key === null || key === undefined || key === '') return pillar;
    return Object.prototype.hasOwnProperty.call(pillar, String(key)) ? pillar[String(key)] : {};
  }

  @Fn({ doc: "List the top-level keys of a freshly compiled pillar\n\nCLI Example:\n\n    salt '*' pillar.ls", args: ['...args', 'kwargs'] })
  async ls(...rest: unknown[]): Promise<string[]> {
    return Object.keys((await this.items(...rest)) as Dict);
  }

  @Fn({ doc: "List the keys of the dict at a pillar key\n\nCLI Example:\n\n    salt '*' pillar.keys web:sites" })
  async keys(key: string, delimiter: unknown = ':'): Promise<string[]> {
    const value = traverse(await this.pillar.current(), String(key), KEY_ERROR, typeof delimiter === 'string' ? delimiter : ':');
    if (value === KEY_ERROR) throw new CommandExecutionError(`Pillar key not found: ${key}`);
    if (!isDict(value)) throw new CommandExecutionError(`Pillar value in key ${key} is not a dict`);
    return Object.keys(value);
  }

  @Fn({ doc: "Whether the key exists in the pillar (nested keys with ':')\n\nCLI Example:\n\n    salt '*' pillar.has_key web:sites" })
  async has_key(key: string, delimiter: unknown = ':'): Promise<boolean> {
    return traverse(await this.pillar.current(), String(key), KEY_ERROR, typeof delimiter === 'string' ? delimiter : ':') !== KEY_ERROR;
  }
}

/** dictupdate.update with merge_lists=True. */
function mergeWithLists(dest: Dict, upd: Dict): Dict {
  for (const [k, v] of Object.entries(upd)) {
    const cur = dest[k];
    if (isDict(cur) && isDict(v)) dest[k] = mergeWithLists(cur, v);
    else if (Array.isArray(cur) && Array.isArray(v)) dest[k] = [...cur, ...v.filter((x) => !cur.includes(x))];
    else dest[k] = v;
  }
  return dest;
}
