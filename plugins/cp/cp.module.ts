import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { rename, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import {
  CommandExecutionError,
  Fn,
  IConfig,
  ILogger,
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

/** Salt's fileclient rule for a URL fetched into a directory: its last segment, else index.html. */
function urlFileName(url: URL, raw: string): string {
  return url.search || (url.pathname.length > 1 && !url.pathname.endsWith('/')) ? raw.split('/').pop()! : 'index.html';
}

/**
 * Salt's `cp` module, the part that reads the master's file server: `get_file`, `get_dir`,
 * `get_url`, `cache_file`, `list_master`, `list_master_dirs`, `hash_file`. The requests are Salt's own, so they work under
 * a brine master and a Salt master alike.
 */
@Module('cp')
export class CpModule {
  constructor(
    @inject(IMasterLink) private readonly master: IMasterLink,
    @inject(IConfig) private readonly config: IConfig,
    @inject(ILogger) private readonly log: ILogger,
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
    summary: "Copy a directory of the master's file server, recursively, into a directory of the minion; the paths written",
    examples: ["salt '*' cp.get_dir salt://files /srv/copy", "salt '*' cp.get_dir salt://files/conf.d /etc/app saltenv=dev"],
    args: {
      path: arg.string(),
      dest: arg.string(),
      saltenv: arg.string({ optional: true }),
      template: arg.any({ default: null }),
      gzip: arg.integer({ optional: true }),
    },
    kwargs: true,
  })
  async get_dir(a: { path: string; dest: string; saltenv?: string; template: unknown }): Promise<string[]> {
    if (a.template)
      throw new CommandExecutionError(
        `cp.get_dir template=${String(a.template)} is not supported by brine: render the files with file.recurse instead`,
      );
    const url = splitSaltUrl(a.path.replace(/\/+$/, ''), this.saltenv(a.saltenv));
    const dir = url.path;
    // As Salt's fileclient: the directory itself lands in dest (salt://a/b -> dest/b/...).
    const parent = dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '';
    const inside = (p: string) => p.length > dir.length && p[dir.length] === '/' && p.startsWith(dir);
    const local = (p: string) => join(a.dest, p.slice(parent.length).replace(/^\/+/, ''));
    const written: string[] = [];
    for (const file of (await this.master.listFiles(url.saltenv, dir)).filter(inside)) {
      const target = local(file);
      mkdirSync(dirname(target), { recursive: true });
      if (await this.master.fetchFile(url.saltenv, file, target)) written.push(target);
    }
    for (const empty of (await this.master.listEmptyDirs(url.saltenv, dir)).filter(inside)) {
      mkdirSync(local(empty), { recursive: true });
      written.push(local(empty));
    }
    return written.sort();
  }

  @Fn({
    summary:
      "Fetch a URL (salt://, http://, https://, file:// or a local path) to dest; the path, or the contents when dest is None (False/'' when it cannot)",
    examples: [
      "salt '*' cp.get_url salt://files/motd /tmp/motd",
      "salt '*' cp.get_url https://example.com/app.tar.gz /srv/app/",
      "salt '*' cp.get_url http://example.com/version.txt dest=None",
    ],
    args: {
      path: arg.string(),
      dest: arg.any({ default: '' }),
      saltenv: arg.string({ optional: true }),
      makedirs: arg.boolean({ default: false }),
      source_hash: arg.any({ default: null }),
    },
  })
  async get_url(a: { path: string; dest: unknown; saltenv?: string; makedirs: boolean }): Promise<string | false> {
    const saltenv = this.saltenv(a.saltenv);
    const result = await this.fetchUrl(a.path, typeof a.dest === 'string' ? a.dest : null, a.makedirs, saltenv);
    if (!result) this.log.error(`Unable to fetch file ${a.path.replace(/\/\/[^/@]*@/, '//')} from saltenv ${saltenv}.`);
    return result;
  }

  /** Salt's fileclient.get_url: dest null returns the contents; '' the minion's cache. */
  private async fetchUrl(raw: string, given: string | null, makedirs: boolean, saltenv: string): Promise<string | false> {
    let url: URL | undefined;
    try {
      url = new URL(raw);
    } catch {
      // No scheme: a local path, as file://.
    }
    let dest = given;
    if (url && dest !== null && ((existsSync(dest) && statSync(dest).isDirectory()) || dest.endsWith('/'))) {
      dest = join(dest, urlFileName(url, raw));
    }
    const scheme = url?.protocol.slice(0, -1) ?? '';
    if (!url || scheme === 'file') {
      const local = url ? decodeURIComponent(url.pathname) : raw;
      if (!isAbsolute(local)) throw new CommandExecutionError(`Path '${local}' is not absolute`);
      return dest === null ? readFileSync(local, 'utf8') : local;
    }
    if (scheme === 'salt') {
      const { path, saltenv: env } = splitSaltUrl(raw, saltenv);
      if (dest === '') return (await this.cache_file({ path: raw, saltenv: env })) || false;
      if ((await this.master.hashFile(env, path)) === null) return false;
      if (dest === null) {
        // The contents only: fetched into a scratch folder, read, removed.
        const scratch = mkdtempSync(join(tmpdir(), 'brine-get-url-'));
        try {
          return (await this.master.fetchFile(env, path, join(scratch, 'file'))) ? readFileSync(join(scratch, 'file'), 'utf8') : false;
        } finally {
          rmSync(scratch, { recursive: true, force: true });
        }
      }
      if (!existsSync(dirname(dest))) {
        if (!makedirs) return false;
        mkdirSync(dirname(dest), { recursive: true });
      }
      return (await this.master.fetchFile(env, path, dest)) ? dest : false;
    }
    if (scheme !== 'http' && scheme !== 'https') {
      throw new CommandExecutionError(`cp.get_url: ${scheme}:// URLs are not supported by brine (salt://, http://, https://, file:// are)`);
    }
    if (dest) {
      if (!existsSync(dirname(dest))) {
        if (!makedirs) return '';
        mkdirSync(dirname(dest), { recursive: true });
      }
    } else if (dest === '') {
      // Salt's _extrn_path: <cachedir>/extrn_files/<saltenv>/<host without ':'>/<path>[-<query>]
      const name = url.search ? `${url.pathname}-${url.search.slice(1)}` : url.pathname;
      dest = join(this.cachedir(), 'extrn_files', saltenv, url.host.replace(/:/g, ''), name);
      mkdirSync(dirname(dest), { recursive: true });
    }
    const headers: Record<string, string> = {};
    if (url.username)
      headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    const plain = new URL(url.href);
    plain.username = '';
    plain.password = '';
    let res: Response;
    try {
      res = await fetch(plain, { headers });
    } catch (err) {
      throw new CommandExecutionError(
        `Error reading ${plain.href}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
      );
    }
    if (!res.ok) throw new CommandExecutionError(`HTTP error ${res.status} reading ${plain.href}: ${res.statusText}`);
    const body = Buffer.from(await res.arrayBuffer());
    if (dest === null) return body.toString('utf8');
    const part = `${dest}.part-${process.pid}`;
    await writeFile(part, body);
    await rename(part, dest);
    return dest;
  }

  /** The minion's cache directory (`cachedir`). */
  private cachedir(): string {
    const dir = this.config.get<string | null>('cachedir', null);
    if (!dir) throw new CommandExecutionError("cp.get_url needs the minion's cachedir to cache a download: give dest");
    return dir;
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
