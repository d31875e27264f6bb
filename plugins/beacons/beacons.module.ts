import { arg, Fn, formatYaml, IConfig, InvocationError, IPillar, Module, inject } from 'brine/plugin';

type Dict = Record<string, unknown>;

function beaconsOf(where: string, value: unknown): Dict {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new InvocationError(`Beacons must be of type dict (the ${where}'s beacons: is not).`);
  return value as Dict;
}

/**
 * Salt's `beacons` module, the part that reads (salt/modules/beacons.py over salt/beacons): the
 * beacons configured in the pillar and the minion's options, and the beacon modules available.
 * brine ships no beacon modules, so none is available and a configured beacon fires nothing.
 */
@Module('beacons')
export class BeaconsModule {
  constructor(
    @inject(IConfig) private readonly config: IConfig,
    @inject(IPillar) private readonly pillar: IPillar,
  ) {}

  @Fn({
    summary: 'List the beacons currently configured on the minion',
    examples: ["salt '*' beacons.list", "salt '*' beacons.list return_yaml=False"],
    args: {
      return_yaml: arg.boolean({ default: true }),
      include_pillar: arg.boolean({ default: true }),
      include_opts: arg.boolean({ default: true }),
    },
    kwargs: true,
  })
  async list(a: { return_yaml: boolean; include_pillar: boolean; include_opts: boolean }): Promise<unknown> {
    // Salt's _get_beacons: the pillar's, then the options' over them.
    const beacons: Dict = {};
    if (a.include_pillar) Object.assign(beacons, beaconsOf('pillar', (await this.pillar.current()).beacons));
    if (a.include_opts) Object.assign(beacons, beaconsOf('minion configuration', this.config.get<unknown>('beacons', {})));
    return a.return_yaml ? formatYaml({ beacons }) : beacons;
  }

  @Fn({
    summary: 'List the beacons available on the minion (brine has no beacon modules)',
    examples: ["salt '*' beacons.list_available"],
    args: { return_yaml: arg.boolean({ default: true }) },
    kwargs: true,
  })
  list_available(): unknown {
    // Salt answers {"beacons": {}} whatever return_yaml says when there are none.
    return { beacons: {} };
  }
}
