import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import {
  CommandExecutionError,
  Fn,
  IConfig,
  IJobContext,
  ILogger,
  IMasterLink,
  IMinionControl,
  checkIncludeExclude,
  IPillar,
  ISalt,
  IStates,
  InvocationError,
  Module,
  arg,
  extrnPath,
  httpDownload,
  httpGet,
  inject,
  redactUrl,
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
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(IStates) private readonly states: IStates,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IPillar, { optional: true }) private readonly pillar: IPillar | undefined,
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
    kwargs?: Record<string, unknown>;
  }): Promise<string | boolean> {
    const names = await this.renderFilenames(a.path, a.dest, this.saltenv(a.saltenv), a.template, a.kwargs);
    const { path, saltenv } = splitSaltUrl(names.path, this.saltenv(a.saltenv));
    if ((await this.master.hashFile(saltenv, path)) === null) return '';
    let dest = names.dest;
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
  async get_dir(a: {
    path: string;
    dest: string;
    saltenv?: string;
    template: unknown;
    kwargs?: Record<string, unknown>;
  }): Promise<string[]> {
    const names = await this.renderFilenames(a.path, a.dest, this.saltenv(a.saltenv), a.template, a.kwargs);
    a = { ...a, ...names };
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
    if (!result) this.log.error(`Unable to fetch file ${redactUrl(a.path)} from saltenv ${saltenv}.`);
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
      dest = extrnPath(raw, this.cachedir(), saltenv);
    }
    if (dest === null) return (await httpGet(raw)).toString('utf8');
    return httpDownload(raw, dest);
  }

  /** The minion's cache directory (`cachedir`). */
  private cachedir(): string {
    const dir = this.config.get<string | null>('cachedir', null);
    if (!dir) throw new CommandExecutionError("cp.get_url needs the minion's cachedir to cache a download: give dest");
    return dir;
  }

  @Fn({
    summary:
      "Fetch a salt:// file (or an http(s) URL, into extrn_files) into the minion's cache; its local path, False when the master has no such file",
    examples: ["salt '*' cp.cache_file salt://files/motd", "salt '*' cp.cache_file https://example.com/app.tar.gz"],
    args: { path: arg.string(), saltenv: arg.string({ optional: true }) },
    kwargs: true,
  })
  async cache_file({ path, saltenv }: { path: string; saltenv?: string }): Promise<string | false> {
    // As Salt's fileclient.cache_file: any URL get_url takes, cached where it keeps downloads.
    if (/^https?:\/\//i.test(path)) return this.fetchUrl(path, '', true, this.saltenv(saltenv));
    if (!this.control)
      throw new CommandExecutionError('cp.cache_file needs the minion (its cache directory): run it through salt-minion or salt-call');
    return (await this.control.cacheFile(path, this.saltenv(saltenv))) ?? false;
  }

  /**
   * Salt's _render_filenames (`template=jinja` of get_file and get_dir): the path and dest
   * strings, not the files, rendered with the minion's grains, pillar (`pillar=` overrides it),
   * opts, saltenv and salt[...]. As Salt, each string is written to a temporary file and rendered.
   */
  private async renderFilenames(
    path: string,
    dest: string,
    saltenv: string,
    template: unknown,
    kwargs: Record<string, unknown> = {},
  ): Promise<{ path: string; dest: string }> {
    if (!template) return { path, dest };
    if (template !== 'jinja') throw new CommandExecutionError(`Attempted to render file paths with unavailable engine ${String(template)}`);
    const given = kwargs.pillar;
    const pillar =
      given !== null && typeof given === 'object' && !Array.isArray(given)
        ? (given as Record<string, unknown>)
        : this.pillar
          ? await this.pillar.current()
          : {};
    const dir = mkdtempSync(join(tmpdir(), 'brine-cp-'));
    const render = async (contents: string): Promise<string> => {
      const file = join(dir, 'path');
      writeFileSync(file, contents);
      try {
        return await this.states.renderTemplate(file, file, { saltenv, pillar, caller: this.salt }, { opts: this.config.all(), saltenv });
      } catch (err) {
        throw new CommandExecutionError(`Failed to render file path with error: ${(err as Error).message}`);
      }
    };
    try {
      return { path: await render(path), dest: await render(dest) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  @Fn({
    summary: "Render a salt:// template (Jinja) and write the result to dest on the minion; dest, or '' when it cannot",
    description:
      'As Salt: the source is cached first, rendered with the grains, pillar and salt[...] of the minion and the extra keyword ' +
      "arguments as variables; without dest the result goes to the minion's cache (extrn_files).",
    examples: [
      "salt '*' cp.get_template salt://path/to/template /minion/dest",
      "salt '*' cp.get_template salt://motd.j2 /etc/motd greeting=hello makedirs=True",
    ],
    args: {
      path: arg.string(),
      dest: arg.string({ default: '' }),
      template: arg.string({ default: 'jinja' }),
      saltenv: arg.string({ optional: true }),
      makedirs: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async get_template(a: {
    path: string;
    dest: string;
    template: string;
    saltenv?: string;
    makedirs: boolean;
    kwargs?: Record<string, unknown>;
  }): Promise<string> {
    const saltenv = this.saltenv(a.saltenv);
    const url = splitSaltUrl(a.path, saltenv);
    const cached = await this.cache_file({ path: a.path, saltenv });
    if (!cached) return '';
    if (a.template !== 'jinja') {
      this.log.error(`Attempted to render template with unavailable engine ${a.template}`);
      return '';
    }
    let text: string;
    try {
      const pillar = this.pillar ? await this.pillar.current() : {};
      const context = Object.fromEntries(Object.entries(a.kwargs ?? {}).filter(([k]) => !k.startsWith('__')));
      text = await this.states.renderTemplate(cached, a.path, { saltenv: url.saltenv, pillar, caller: this.salt }, context);
    } catch (err) {
      this.log.error(`Failed to render template with error: ${(err as Error).message}`);
      return '';
    }
    let dest = a.dest;
    let makedirs = a.makedirs;
    if (!dest) {
      // Salt's _extrn_path for a salt:// URL: <cachedir>/extrn_files/<saltenv>/<path>.
      dest = join(this.cachedir(), 'extrn_files', url.saltenv, url.path);
      makedirs = true;
    }
    if (!existsSync(dirname(dest))) {
      if (!makedirs) return '';
      mkdirSync(dirname(dest), { recursive: true });
    }
    writeFileSync(dest, text);
    return dest;
  }

  @Fn({
    summary: "Fetch every file under a salt:// directory into the minion's cache; the local paths",
    examples: ["salt '*' cp.cache_dir salt://path/to/dir", "salt '*' cp.cache_dir salt://path/to/dir include_pat='E@*.py$'"],
    args: {
      path: arg.string(),
      saltenv: arg.string({ optional: true }),
      include_empty: arg.boolean({ default: false }),
      include_pat: arg.any({ default: null }),
      exclude_pat: arg.any({ default: null }),
    },
  })
  async cache_dir(a: {
    path: string;
    saltenv?: string;
    include_empty: boolean;
    include_pat: unknown;
    exclude_pat: unknown;
  }): Promise<string[]> {
    const saltenv = this.saltenv(a.saltenv);
    const url = splitSaltUrl(a.path, saltenv);
    // As Salt's fileclient: files that start with this *directory*.
    const dir = url.path.endsWith('/') ? url.path : `${url.path}/`;
    const ret: string[] = [];
    for (const file of await this.master.listFiles(url.saltenv, '')) {
      if (!file.trim() || !file.startsWith(dir) || !checkIncludeExclude(file, a.include_pat, a.exclude_pat)) continue;
      const local = await this.cache_file({ path: `salt://${file}`, saltenv: url.saltenv });
      if (local) ret.push(local);
    }
    if (a.include_empty) {
      const base = join(this.cachedir(), 'files', url.saltenv);
      for (const empty of await this.master.listEmptyDirs(url.saltenv, '')) {
        if (!empty.startsWith(dir)) continue;
        mkdirSync(join(base, empty), { recursive: true });
        ret.push(`${base}/${empty}`);
      }
    }
    return ret;
  }

  @Fn({
    summary: 'List the SLS files of an environment on the master, as state names',
    examples: ["salt '*' cp.list_states", "salt '*' cp.list_states saltenv=dev"],
    args: { saltenv: arg.string({ optional: true }) },
  })
  async list_states({ saltenv }: { saltenv?: string }): Promise<string[]> {
    const states = new Set<string>();
    for (const path of await this.master.listFiles(this.saltenv(saltenv), '')) {
      if (!path.endsWith('.sls')) continue;
      states.add(path.endsWith('/init.sls') ? path.replace(/\//g, '.').slice(0, -9) : path.replace(/\//g, '.').slice(0, -4));
    }
    return [...states].sort();
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

  @Fn({
    summary:
      "Push a file from the minion to the master's cache (<cachedir>/minions/<id>/files/<path>); the master must have file_recv: True",
    examples: [
      "salt '*' cp.push /etc/fstab",
      "salt '*' cp.push /etc/fstab upload_path='/new/path/fstab'",
      "salt '*' cp.push /tmp/f remove_source=True",
    ],
    args: {
      path: arg.string(),
      keep_symlinks: arg.boolean({ default: false }),
      upload_path: arg.string({ optional: true }),
      remove_source: arg.boolean({ default: false }),
    },
  })
  async push(a: { path: string; keep_symlinks: boolean; upload_path?: string; remove_source: boolean }): Promise<unknown> {
    // Salt's checks, each answered False as Salt's cp.push answers them.
    if (a.path.includes('../') || !isAbsolute(a.path)) return false;
    let path = a.path;
    if (!a.keep_symlinks) {
      try {
        path = realpathSync(path);
      } catch {
        return false;
      }
    }
    if (!existsSync(path) || !statSync(path).isFile()) return false;
    if (a.upload_path?.includes('../')) return false;
    const parts = normalize((a.upload_path || path).replace(/^\/+/, ''))
      .split('/')
      .filter((p) => p !== '');
    const size = statSync(path).size;
    const bufferSize = Number(this.config.get('file_buffer_size', 262144)) || 262144;
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(bufferSize);
      let loc = 0;
      // At least one chunk, so an empty file is created on the master too.
      for (let first = true; ; first = false) {
        const n = readSync(fd, buffer, 0, bufferSize, loc);
        if (n === 0 && !first) break;
        const answer = await this.master.pushFileChunk({ path: parts, size, loc, data: Buffer.from(buffer.subarray(0, n)) });
        if (!answer) return answer;
        loc += n;
        if (n === 0) break;
      }
    } finally {
      closeSync(fd);
    }
    if (a.remove_source) rmSync(path, { force: true });
    return true;
  }

  @Fn({
    summary: 'Receive files from salt-cp (not chunked): {path: text} written to dest; used by salt-cp, not on the CLI',
    examples: ["salt '*' cp.recv"],
    args: { files: arg.dict(), dest: arg.string() },
  })
  recv({ files, dest }: { files: Record<string, unknown>; dest: string }): Record<string, boolean> | string {
    const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
    const ret: Record<string, boolean> = {};
    for (const [path, data] of Object.entries(files)) {
      let final: string;
      if (basename(path) === basename(dest) && !isDir(dest)) final = dest;
      else if (isDir(dest)) final = join(dest, basename(path));
      else if (isDir(dirname(dest))) final = dest;
      else return 'Destination unavailable';
      try {
        writeFileSync(final, Buffer.isBuffer(data) ? data : String(data));
        ret[final] = true;
      } catch {
        ret[final] = false;
      }
    }
    return ret;
  }

  @Fn({
    summary: 'Receive one chunk of a file from salt-cp --chunked (base64, gzip unless compressed=False); used by salt-cp, not on the CLI',
    examples: ["salt '*' cp.recv_chunked"],
    args: {
      dest: arg.string(),
      chunk: arg.any(),
      append: arg.boolean({ default: false }),
      compressed: arg.boolean({ default: true }),
      mode: arg.integer({ optional: true }),
    },
  })
  recv_chunked(a: { dest: string; chunk: unknown; append: boolean; compressed: boolean; mode?: number }): string | boolean {
    // Salt's answers: an error text (retcode 1), or True.
    const error = (err: unknown): string => {
      this.job.retcode = 1;
      return (err as Error)?.message ?? String(err);
    };
    if (a.chunk === null || a.chunk === undefined) {
      // An empty directory of the source.
      if (existsSync(a.dest)) return statSync(a.dest).isFile() ? 'Path exists and is a file' : true;
      try {
        mkdirSync(a.dest, { recursive: true });
      } catch (err) {
        return error(err);
      }
      return true;
    }
    const encoded = Buffer.isBuffer(a.chunk) ? a.chunk.toString('latin1') : String(a.chunk);
    let data = Buffer.from(encoded, 'base64');
    try {
      if (a.compressed) data = gunzipSync(data);
    } catch (err) {
      return error(err);
    }
    try {
      if (!existsSync(dirname(a.dest))) mkdirSync(dirname(a.dest), { recursive: true });
      if (a.append) appendFileSync(a.dest, data);
      else writeFileSync(a.dest, data);
      if (!a.append && a.mode !== undefined && a.mode !== null) chmodSync(a.dest, a.mode);
    } catch (err) {
      return error(err);
    }
    return true;
  }
}
