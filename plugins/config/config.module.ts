import { Fn, IConfig, IGrains, IPillar, Module, arg, dictUpdate, fnmatch, inject, isDict, traverse } from 'brine/plugin';

/** Salt's config.DEFAULTS: values modules read when nothing else sets them. */
const DEFAULTS: Record<string, unknown> = {
  'mongo.db': 'salt',
  'mongo.password': '',
  'mongo.port': 27017,
  'mongo.user': '',
  'redis.db': '0',
  'redis.host': 'salt',
  'redis.port': 6379,
  'test.foo': 'unconfigured',
  'ca.cert_base_path': '/etc/pki',
  'solr.cores': [],
  'solr.host': 'localhost',
  'solr.port': '8983',
  'solr.baseurl': '/solr',
  'solr.type': 'master',
  'solr.request_timeout': null,
  'solr.init_script': '/etc/rc.d/solr',
  'solr.dih.import_options': { clean: false, optimize: true, commit: true, verbose: false },
  'solr.backup_path': null,
  'solr.num_backups': 1,
  'poudriere.config': '/usr/local/etc/poudriere.conf',
  'poudriere.config_dir': '/usr/local/etc/poudriere.d',
  'ldap.uri': '',
  'ldap.server': 'localhost',
  'ldap.port': '389',
  'ldap.tls': false,
  'ldap.no_verify': false,
  'ldap.anonymous': true,
  'ldap.scope': 2,
  'ldap.attrs': null,
  'ldap.binddn': '',
  'ldap.bindpw': '',
  'hosts.file': '/etc/hosts',
  'aliases.file': '/etc/aliases',
  virt: { tunnel: false, images: '/srv/salt-images' },
  'docker.exec_driver': 'docker-exec',
  'docker.compare_container_networks': {
    static: ['Aliases', 'Links', 'IPAMConfig'],
    automatic: ['IPAddress', 'Gateway', 'GlobalIPv6Address', 'IPv6Gateway'],
  },
};

const MISSING = '_|-';
const OMIT = {
  omit_opts: arg.boolean({ default: false }),
  omit_grains: arg.boolean({ default: false }),
  omit_pillar: arg.boolean({ default: false }),
  omit_master: arg.boolean({ default: false }),
};
type Omit = { omit_opts: boolean; omit_grains: boolean; omit_pillar: boolean; omit_master: boolean };

const asMap = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** Salt's `config` module: one lookup through minion options, grains, pillar, master pillar and defaults. */
@Module('config', { doc: 'Return config information' })
export class ConfigModule {
  constructor(
    @inject(IConfig) private readonly config: IConfig,
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IPillar) private readonly pillar: IPillar,
  ) {}

  /** The sources in Salt's order, each with whether it is left out. */
  private async sources(o: Omit): Promise<[boolean, Record<string, unknown>][]> {
    const pillar = await this.pillar.current();
    return [
      [o.omit_opts, this.config.all()],
      [o.omit_grains, this.grains.all()],
      [o.omit_pillar, pillar],
      [o.omit_master, asMap(pillar.master)],
    ];
  }

  @Fn({
    summary: "Look a key up in the minion config, grains, pillar, master config (in pillar) and Salt's defaults, walking ':'",
    description: "merge='recurse' or 'overwrite' merges all the sources (defaults < master < pillar < grains < opts) before the lookup.",
    examples: ["salt '*' config.get pkg:apache", "salt '*' config.get lxc.container_profile:centos merge=recurse"],
    args: {
      key: arg.string(),
      default: arg.any({ default: '' }),
      delimiter: arg.string({ default: ':' }),
      merge: arg.string({ optional: true }),
      ...OMIT,
    },
  })
  async get(a: { key: string; default: unknown; delimiter: string; merge?: string } & Omit): Promise<unknown> {
    const sources = await this.sources(a);
    if (a.merge === undefined) {
      for (const [omit, data] of sources) {
        if (omit) continue;
        const ret = traverse(data, a.key, MISSING, a.delimiter);
        if (ret !== MISSING) return ret;
      }
      const ret = traverse(DEFAULTS, a.key, MISSING, a.delimiter);
      return ret !== MISSING ? ret : a.default;
    }
    // Lowest first: defaults, master, pillar, grains, opts.
    let data = structuredClone(DEFAULTS);
    for (const [, source] of [...sources].reverse())
      data = dictUpdate(data, structuredClone(source), { mergeLists: false }) as Record<string, unknown>;
    const ret = traverse(data, a.key, MISSING, a.delimiter);
    return ret !== MISSING ? ret : a.default;
  }

  @Fn({
    summary: 'Return a top-level option from the minion config, grains, pillar, master config or defaults (wildcard=True: a glob)',
    examples: ["salt '*' config.option redis.host", "salt '*' config.option 'mine_*' wildcard=True"],
    args: {
      value: arg.string(),
      default: arg.any({ optional: true }),
      ...OMIT,
      omit_all: arg.boolean({ default: false }),
      wildcard: arg.boolean({ default: false }),
    },
  })
  async option(a: { value: string; default?: unknown; omit_all: boolean; wildcard: boolean } & Omit): Promise<unknown> {
    const o = a.omit_all ? { omit_opts: true, omit_grains: true, omit_pillar: true, omit_master: true } : a;
    const fallback = a.default ?? (a.wildcard ? {} : '');
    const sources = await this.sources(o);
    if (!a.wildcard) {
      for (const [omit, data] of sources) if (!omit && Object.hasOwn(data, a.value)) return data[a.value];
      return Object.hasOwn(DEFAULTS, a.value) ? DEFAULTS[a.value] : fallback;
    }
    const ret: Record<string, unknown> = {};
    // Salt applies master, pillar, grains, opts in that order: opts win.
    for (const [omit, data] of [...sources].reverse()) {
      if (omit) continue;
      for (const k of Object.keys(data)) if (fnmatch(a.value, k)) ret[k] = data[k];
    }
    for (const k of Object.keys(DEFAULTS)) if (fnmatch(a.value, k) && !(k in ret)) ret[k] = DEFAULTS[k];
    return Object.keys(ret).length > 0 ? ret : fallback;
  }

  @Fn({ summary: 'Return the complete minion config', examples: ["salt '*' config.items"] })
  items(): Record<string, unknown> {
    return this.config.all();
  }

  @Fn({
    summary: 'Return an option merged from the minion options, the master pillar and the pillar (dicts and lists merge)',
    examples: ["salt '*' config.merge schedule"],
    args: {
      value: arg.string(),
      default: arg.any({ default: '' }),
      omit_opts: arg.boolean({ default: false }),
      omit_master: arg.boolean({ default: false }),
      omit_pillar: arg.boolean({ default: false }),
    },
  })
  async merge(a: { value: string; default: unknown; omit_opts: boolean; omit_master: boolean; omit_pillar: boolean }): Promise<unknown> {
    const pillar = await this.pillar.current();
    const opts = this.config.all();
    let ret: unknown = undefined;
    if (!a.omit_opts && Object.hasOwn(opts, a.value)) {
      ret = opts[a.value];
      if (typeof ret === 'string') return ret;
    }
    // Salt's order: the master pillar, then the pillar; an earlier dict's keys win (tmp.update(ret)).
    const later: Array<[boolean, Record<string, unknown>]> = [
      [a.omit_master, asMap(pillar.master)],
      [a.omit_pillar, pillar],
    ];
    for (const [omit, data] of later) {
      if (omit || !Object.hasOwn(data, a.value)) continue;
      const tmp = data[a.value];
      if (ret === undefined || ret === null) {
        ret = tmp;
        if (typeof ret === 'string') return ret;
      } else if (isDict(ret) && isDict(tmp)) ret = { ...tmp, ...ret };
      else if (Array.isArray(ret) && Array.isArray(tmp)) ret = [...ret, ...tmp];
    }
    if ((ret === undefined || ret === null) && Object.hasOwn(DEFAULTS, a.value)) return DEFAULTS[a.value];
    return ret === undefined || ret === null ? a.default : ret;
  }
}
