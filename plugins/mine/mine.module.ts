import { Fn, IConfig, ILogger, IMasterLink, ISalt, Module, arg, inject, isDict } from 'brine/plugin';

type Dict = Record<string, unknown>;

// Salt's salt.utils.mine: a mine entry with a minion-side ACL.
const MINE_ACL_ID = '__saltmine_acl__';
const MINE_ACL_VERSION = 1;
const MINE_ACL_DATA = '__data__';

/**
 * Salt's salt.utils.mine.parse_function_definition: a mine_functions entry as the function (when
 * not the alias), its arguments and keyword arguments, and its minion-side ACL.
 */
function parseDefinition(definition: unknown): { fun?: string; args: unknown[]; kwargs: Dict; acl: Dict } {
  const args: unknown[] = [];
  let kwargs: Dict = {};
  if (isDict(definition)) kwargs = { ...definition };
  else if (Array.isArray(definition)) {
    for (const item of definition) {
      if (isDict(item)) Object.assign(kwargs, item);
      else args.push(item);
    }
  }
  const { mine_function: fun, allow_tgt: allowTgt, allow_tgt_type: allowTgtType, ...rest } = kwargs;
  const acl: Dict = {};
  if (allowTgt) acl.allow_tgt = allowTgt;
  if (allowTgtType) acl.allow_tgt_type = allowTgtType;
  return { fun: typeof fun === 'string' && fun !== '' ? fun : undefined, args, kwargs: rest, acl };
}

/**
 * Salt's `mine` module against the master's mine: `send` stores a function's result, `update` the mine_functions' results, `get` reads
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
    if (allowTgt) {
      const wrapped: Dict = { [MINE_ACL_DATA]: result, [MINE_ACL_ID]: MINE_ACL_VERSION, allow_tgt: allowTgt };
      if (allowTgtType) wrapped.allow_tgt_type = allowTgtType;
      result = wrapped;
    }
    return this.master.mineSend({ [name]: result });
  }

  @Fn({
    summary: "Run the mine_functions (minion config, master config and pillar merged) and store their results in the master's mine",
    description:
      'mine_functions maps an alias to its arguments: a list (dict items are keyword arguments, mine_function: the function ' +
      'when the alias is not one) or a dict of keyword arguments. mine_functions= given here replaces the configured ones ' +
      '(a list of function names, or the same map); clear=True replaces the whole mine.',
    examples: ["salt '*' mine.update", "salt '*' mine.update mine_functions='[network.ip_addrs]'"],
    args: { clear: arg.boolean({ default: false }), mine_functions: arg.any({ default: null }) },
  })
  async update({ clear, mine_functions: given }: { clear: boolean; mine_functions: unknown }): Promise<unknown> {
    let functions: Dict;
    if (given === null || given === undefined || given === '' || (Array.isArray(given) && given.length === 0)) {
      const configured = await this.salt.call('config.merge', ['mine_functions', {}]);
      // As Salt: nothing configured, nothing sent (None).
      if (!isDict(configured) || Object.keys(configured).length === 0) return null;
      functions = configured;
    } else if (Array.isArray(given)) {
      functions = Object.fromEntries(given.map((f) => [String(f), {}]));
    } else if (isDict(given)) {
      functions = given;
    } else {
      return null;
    }
    const data: Dict = {};
    for (const [alias, definition] of Object.entries(functions)) {
      const { fun, args, kwargs, acl } = parseDefinition(definition);
      const name = fun ?? alias;
      if (!this.salt.has(name)) {
        this.log.error('Function %s in mine_functions not available', name);
        continue;
      }
      let result: unknown;
      try {
        result = await this.salt.call(name, args, kwargs);
      } catch (err) {
        this.log.error('Function %s in mine.update failed to execute', name);
        this.log.debug('Error: %s', (err as Error)?.message ?? String(err));
        continue;
      }
      data[alias] = acl.allow_tgt ? { [MINE_ACL_DATA]: result, [MINE_ACL_ID]: MINE_ACL_VERSION, ...acl } : result;
    }
    return this.master.mineSend(data, clear);
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
}
