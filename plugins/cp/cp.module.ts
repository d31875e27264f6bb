import { existsSync, mkdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  CommandExecutionError,
  Fn,
  IConfig,
  IMasterLink,
  IMinionControl,
  InvocationError,
  Module,
  arg,
  inject,
  type MasterFileHash,
} from 'brine/plugin';

/** `salt://path?saltenv=x` -> the path and its saltenv (`fallback` without `?saltenv=`). */
function splitSaltUrl(url: string, fallback: string): { path: string; saltenv: string } {
  if (!url.startsWith('salt://')) {
    throw new InvocationError(`Unsupported path '${url}': give a salt:// URL of the master's file server (salt://files/motd)`);
  }
  let path = url.slice('salt://'.length);
  let saltenv = fallback;
  const q = path.indexOf('?');
  if (q !== -1) {
    saltenv = new URLSearchParams(path.slice(q + 1)).get('saltenv') || saltenv;
    path = path.slice(0, q);
  }
  path = path.replace(/^\/+/, '');
  if (path === '' || path.split('/').includes('..')) throw new InvocationError(`Invalid salt:// path '${url}'`);
  return { path, saltenv };
}

/**
 * Salt's `cp` module, the part that reads the master's file server: `get_file`, `cache_file`,
 * `list_master`, `list_master_dirs`, `hash_file`. The requests are Salt's own, so they work under
 * a brine master and a Salt master alike.
 */
@Module('cp')
export class CpModule {
  constructor(
    @inject(IMasterLink) private readonly master: IMasterLink,
    @inject(IConfig) private readonly config: IConfig,
    // Only cache_file needs the minion's cache; without it (a bare loader) the rest still loads.
    @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
  ) {}

  /** Salt's default saltenv: the minion's `saltenv` option, else base. */
  private saltenv(given?: string): string {
    return given || this.config.get<string | null>('saltenv', null) || 'base';
  }

  @Fn({
    summary: "Copy a file from the master's file server to the minion; its path, '' when the master has no such file",
    examples: ["salt '*' cp.get_file salt://files/motd /etc/motd", "salt '*' cp.get_file salt://files/motd /srv/new/ makedirs=True"],
    args: {
      path: arg.string(),
      dest: arg.string(),
      saltenv: arg.string({ optional: true }),
      makedirs: arg.boolean({ default: false }),
      template: arg.any({ default: null }),
      gzip: arg.integer({ optional: true }),
    },
    kwargs: true,
  })
  async get_file(a: {
    path: string;
    dest: string;
    saltenv?: string;
    makedirs: boolean;
    template: unknown;
    gzip?: number;
  }): Promise<string | boolean> {
    if (a.template)
      throw new CommandExecutionError(
        `cp.get_file template=${String(a.template)} is not supported by brine: render the file with a file.managed state instead`,
      );
    const { path, saltenv } = splitSaltUrl(a.path, this.saltenv(a.saltenv));
    if ((await this.master.hashFile(saltenv, path)) === null) return '';
    let dest = a.dest;
    // As Salt: a directory (or a path ending in '/') receives the file under its own name.
    if ((existsSync(dest) && statSync(dest).isDirectory()) || dest.endsWith('/')) dest = join(dest, basename(path));
    if (!existsSync(dirname(dest))) {
      if (!a.makedirs) return false;
      mkdirSync(dirname(dest), { recursive: true });
    }
    return (await this.master.fetchFile(saltenv, path, dest)) ? dest : '';
  }

  @Fn({
    summary: "Fetch a salt:// file into the minion's cache; its local path, False when the master has no such file",
    examples: ["salt '*' cp.cache_file salt://files/motd"],
    args: { path: arg.string(), saltenv: arg.string({ optional: true }) },
    kwargs: true,
  })
  async cache_file({ path, saltenv }: { path: string; saltenv?: string }): Promise<string | false> {
    if (!this.control)
      throw new CommandExecutionError('cp.cache_file needs the minion (its cache directory): run it through salt-minion or salt-call');
    return (await this.control.cacheFile(path, this.saltenv(saltenv))) ?? false;
  }

  @Fn({
    summary: "List the files of the master's file server",
    examples: ["salt '*' cp.list_master", "salt '*' cp.list_master saltenv=dev prefix=files"],
    args: { saltenv: arg.string({ optional: true }), prefix: arg.string({ default: '' }) },
  })
  list_master({ saltenv, prefix }: { saltenv?: string; prefix: string }): Promise<string[]> {
    return this.master.listFiles(this.saltenv(saltenv), prefix);
  }

  @Fn({
    summary: "List the directories of the master's file server",
    examples: ["salt '*' cp.list_master_dirs"],
    args: { saltenv: arg.string({ optional: true }), prefix: arg.string({ default: '' }) },
  })
  list_master_dirs({ saltenv, prefix }: { saltenv?: string; prefix: string }): Promise<string[]> {
    return this.master.listDirs(this.saltenv(saltenv), prefix);
  }

  @Fn({
    summary: "The master's hash of a salt:// file ({hsum, hash_type}), '' when it has no such file",
    examples: ["salt '*' cp.hash_file salt://files/motd"],
    args: { path: arg.string(), saltenv: arg.string({ optional: true }) },
  })
  async hash_file({ path, saltenv }: { path: string; saltenv?: string }): Promise<MasterFileHash | ''> {
    const url = splitSaltUrl(path, this.saltenv(saltenv));
    return (await this.master.hashFile(url.saltenv, url.path)) ?? '';
  }
}
