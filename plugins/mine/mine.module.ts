import { Fn, IConfig, ILogger, IMasterLink, ISalt, Module, arg, inject } from 'brine/plugin';

type Dict = Record<string, unknown>;

// Salt's salt.utils.mine: a mine entry with a minion-side ACL.
const MINE_ACL_ID = '__saltmine_acl__';
const MINE_ACL_VERSION = 1;
const MINE_ACL_DATA = '__data__';

/**
 * Salt's `mine` module against the master's mine: `send` stores a function's result, `get` reads
 * the results of the minions a target matches, `delete` and `flush` remove them. The requests are
 * Salt's own (`_mine`, `_mine_get`, `_mine_delete`, `_mine_flush`).
 */
@Module('mine')
export class MineModule {
  constructor(
    @inject(IMasterLink) private readonly master: IMasterLink,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(ILogger) private readonly log: ILogger,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  @Fn({
    summary: "Run a function and store its result in the master's mine under its name (False when it fails)",
    examples: [
      "salt '*' mine.send network.ip_addrs interface=eth0",
      "salt '*' mine.send eth0_ip mine_function=network.ip_addrs interface=eth0 allow_tgt='web*'",
    ],
    args: { name: arg.string() },
    varargs: true,
    kwargs: true,
  })
  async send({ name, args, kwargs }: { name: string; args: unknown[]; kwargs: Dict }): Promise<unknown> {
    // Salt's clean_kwargs: the job's __pub_* data is not passed on.
    const kw: Dict = Object.fromEntries(Object.entries(kwargs).filter(([k]) => !k.startsWith('__')));
    const fun = typeof kw.mine_function === 'string' && kw.mine_function !== '' ? kw.mine_function : name;
    const { allow_tgt: allowTgt, allow_tgt_type: allowTgtType } = kw;
    delete kw.mine_function;
    delete kw.allow_tgt;
    delete kw.allow_tgt_type;
    let result: unknown;
    try {
      result = await this.salt.call(fun, args, kw);
    } catch (err) {
      this.log.error('Function %s in mine.send failed to execute', fun);
      this.log.debug('Error: %s', (err as Error)?.message ?? String(err));
      return false;
    }
    return this.master.mineSend({ [name]: withAcl(result, allowTgt, allowTgtType) });
  }

  @Fn({
    summary: 'The mine data of the minions a target matches: {minion: data}',
    examples: ["salt '*' mine.get '*' network.ip_addrs", "salt '*' mine.get 'role:web' network.ip_addrs tgt_type=grain"],
    args: { tgt: arg.string(), fun: arg.any(), tgt_type: arg.string({ default: 'glob' }), exclude_minion: arg.boolean({ default: false }) },
  })
  async get({
    tgt,
    fun,
    tgt_type: tgtType,
    exclude_minion: excludeMinion,
  }: {
    tgt: string;
    fun: unknown;
    tgt_type: string;
    exclude_minion: boolean;
  }): Promise<Dict> {
    const funs = Array.isArray(fun) ? fun.map(String) : String(fun);
    const ret = await this.master.mineGet(tgt, funs, tgtType);
    if (excludeMinion) delete ret[String(this.config.get('id', ''))];
    return ret;
  }

  @Fn({
    summary: "Remove one function's data from this minion's mine",
    examples: ["salt '*' mine.delete network.ip_addrs"],
    args: { fun: arg.string() },
  })
  delete({ fun }: { fun: string }): Promise<unknown> {
    return this.master.mineDelete(fun);
  }

  @Fn({ summary: "Remove all of this minion's mine data", examples: ["salt '*' mine.flush"], args: {} })
  flush(): Promise<unknown> {
    return this.master.mineFlush();
  }

  @Fn({
    summary: "Run the mine_functions (or the ones given) and store their results in the master's mine",
    examples: ["salt '*' mine.update", "salt '*' mine.update clear=True"],
    args: { clear: arg.boolean({ default: false }), mine_functions: arg.any({ optional: true }) },
  })
  async update({ clear, mine_functions: given }: { clear: boolean; mine_functions?: unknown }): Promise<unknown> {
    let functions: unknown = given;
    if (!functions) {
      functions = await this.salt.call('config.merge', ['mine_functions', {}]);
      if (!functions || (typeof functions === 'object' && Object.keys(functions).length === 0)) return null;
    } else if (Array.isArray(functions)) functions = Object.fromEntries(functions.map((f) => [String(f), {}]));
    if (functions === null || typeof functions !== 'object' || Array.isArray(functions)) return null;
    const data: Dict = {};
    for (const [alias, def] of Object.entries(functions as Dict)) {
      const { name, args, kwargs, allowTgt, allowTgtType } = parseMineFunction(def);
      const fun = name ?? alias;
      if (!this.salt.has(fun)) {
        this.log.error('Function %s in mine_functions not available', fun);
        continue;
      }
      try {
        data[alias] = withAcl(await this.salt.call(fun, args, kwargs), allowTgt, allowTgtType);
      } catch (err) {
        this.log.error('Function %s in mine.update failed to execute', fun);
        this.log.debug('Error: %s', (err as Error)?.message ?? String(err));
      }
    }
    return this.master.mineSend(data, clear);
  }

  @Fn({
    summary: 'List the valid entries of the mine configuration (mine_functions): {alias: {function: args}} or {name: args}',
    examples: ["salt '*' mine.valid"],
    args: {},
  })
  async valid(): Promise<Dict | null> {
    const functions = await this.salt.call('config.merge', ['mine_functions', {}]);
    // Salt bails out with None when nothing is configured.
    if (!functions || typeof functions !== 'object' || Array.isArray(functions) || Object.keys(functions).length === 0) return null;
    const ret: Dict = {};
    for (const [alias, data] of Object.entries(functions as Dict)) {
      const { name, args, kwargs } = parseMineFunction(data);
      if (!this.salt.has(name ?? alias)) {
        this.log.error('Function %s in mine_functions not available', name ?? alias);
        continue;
      }
      ret[alias] = name ? { [name]: [...args, ...Object.entries(kwargs).map(([k, v]) => ({ [k]: v }))] } : data;
    }
    return ret;
  }
}

/**
 * Salt's salt.utils.mine.parse_function_definition: a mine_functions entry as a list of
 * arguments (dicts among them are keyword arguments) or a dict of keyword arguments, either
 * naming the function under `mine_function`; allow_tgt/allow_tgt_type are the ACL, not arguments.
 */
function parseMineFunction(data: unknown): { name?: string; args: unknown[]; kwargs: Dict; allowTgt: unknown; allowTgtType: unknown } {
  const args: unknown[] = [];
  let kwargs: Dict = {};
  if (Array.isArray(data)) {
    for (const item of data) {
      if (item !== null && typeof item === 'object' && !Array.isArray(item)) Object.assign(kwargs, item);
      else args.push(item);
    }
  } else if (data !== null && typeof data === 'object') kwargs = { ...(data as Dict) };
  const name = typeof kwargs.mine_function === 'string' ? kwargs.mine_function : undefined;
  const { allow_tgt: allowTgt, allow_tgt_type: allowTgtType } = kwargs;
  delete kwargs.mine_function;
  delete kwargs.allow_tgt;
  delete kwargs.allow_tgt_type;
  return { name, args, kwargs, allowTgt, allowTgtType };
}

/** Salt's wrap_acl_structure: a mine entry with a minion-side ACL, when allow_tgt is set. */
function withAcl(result: unknown, allowTgt: unknown, allowTgtType: unknown): unknown {
  if (!allowTgt) return result;
  const wrapped: Dict = { [MINE_ACL_DATA]: result, [MINE_ACL_ID]: MINE_ACL_VERSION, allow_tgt: allowTgt };
  if (allowTgtType) wrapped.allow_tgt_type = allowTgtType;
  return wrapped;
}
