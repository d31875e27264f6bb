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
    if (allowTgt) {
      const wrapped: Dict = { [MINE_ACL_DATA]: result, [MINE_ACL_ID]: MINE_ACL_VERSION, allow_tgt: allowTgt };
      if (allowTgtType) wrapped.allow_tgt_type = allowTgtType;
      result = wrapped;
    }
    return this.master.mineSend({ [name]: result });
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
