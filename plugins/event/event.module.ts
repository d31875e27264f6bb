import { Fn, IConfig, IGrains, IMasterLink, IMinionEvents, IPillar, Module, arg, inject, isDict } from 'brine/plugin';

type Dict = Record<string, unknown>;

function subset(keys: unknown, all: Dict): Dict {
  if (!Array.isArray(keys)) return { ...all };
  return Object.fromEntries(
    keys
      .map(String)
      .filter((k) => Object.hasOwn(all, k))
      .map((k) => [k, all[k]]),
  );
}

/**
 * Salt's `event` module: `event.send` and `event.fire_master` put an event on the master's event
 * bus (a brine master's or a Salt master's); `event.fire` on the minion's own bus.
 */
@Module('event')
export class EventModule {
  constructor(
    @inject(IMasterLink) private readonly master: IMasterLink,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IPillar) private readonly pillar: IPillar,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IMinionEvents) private readonly events: IMinionEvents,
  ) {}

  @Fn({
    summary: "Fire an event on the minion's own event bus (tag fire_master: forwarded to the master as Salt's minion does)",
    examples: [
      "salt '*' event.fire '{\"data\": \"my event data\"}' 'tag'",
      'salt \'*\' event.fire \'{"tag": "myco/deployed", "data": {"v": 3}}\' fire_master',
    ],
    args: { data: arg.any(), tag: arg.string(), timeout: arg.any({ default: null }) },
  })
  fire({ data, tag }: { data: unknown; tag: string }): Promise<boolean> {
    return this.events.fire(tag, data);
  }

  @Fn({
    summary: "Fire an event on the master's event bus",
    examples: ["salt '*' event.fire_master '{\"data\": \"my event data\"}' 'tag'"],
    args: { data: arg.any(), tag: arg.string(), preload: arg.any({ default: null }) },
  })
  async fire_master({ data, tag, preload }: { data: unknown; tag: string; preload: unknown }): Promise<boolean> {
    await this.master.fireEvent(tag, data, isDict(preload) ? (preload as Dict) : undefined);
    return true;
  }

  @Fn({
    summary: 'Send an event to the master, with extra data from the environment, grains, pillar or keyword arguments',
    examples: ["salt '*' event.send myco/mytag foo=Foo bar=Bar", "salt '*' event.send myco/mytag '{foo: Foo}' with_grains='[os, id]'"],
    args: {
      tag: arg.string(),
      data: arg.any({ default: null }),
      preload: arg.any({ default: null }),
      with_env: arg.any({ default: false }),
      with_grains: arg.any({ default: false }),
      with_pillar: arg.any({ default: false }),
      with_env_opts: arg.any({ default: false }),
    },
    kwargs: true,
  })
  async send(a: {
    tag: string;
    data: unknown;
    preload: unknown;
    with_env: unknown;
    with_grains: unknown;
    with_pillar: unknown;
    with_env_opts: unknown;
    kwargs: Dict;
  }): Promise<boolean> {
    // Salt's order: environment, grains, pillar, env opts, keyword arguments, then `data` over all.
    const data: Dict = {};
    if (a.with_env) data.environ = subset(a.with_env, process.env as Dict);
    if (a.with_grains) data.grains = subset(a.with_grains, this.grains.all());
    if (a.with_pillar) data.pillar = subset(a.with_pillar, await this.pillar.current());
    if (a.with_env_opts) {
      data.saltenv = this.config.get('saltenv', 'base');
      data.pillarenv = this.config.get('pillarenv', null);
    }
    Object.assign(data, a.kwargs);
    if (isDict(a.data)) Object.assign(data, a.data);
    return this.fire_master({ data, tag: a.tag, preload: a.preload });
  }
}
