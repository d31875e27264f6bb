/**
 * A V8 code cache for brine's commands, so a short command (salt-call, salt, salt-key) does not
 * compile its ~400 CommonJS modules from source on every start. Node 22 has this built in
 * (`module.enableCompileCache`); on Node 20 each module is compiled through `vm.Script` with the
 * bytes V8 produced for it last time (`cachedData`), and the code of the modules compiled from
 * source is written when the process exits (after the run, so that the functions it used are
 * in it too). V8 checks the source hash and its own version and flags: a stale or foreign entry
 * is rejected and rewritten, never used. Files are written to a temporary name and renamed, so
 * concurrent commands never read half an entry.
 *
 * The cache is `$BRINE_COMPILE_CACHE` (a folder; `0` turns it off), else
 * `<tmpdir>/brine-compile-cache-<uid>`, as Node's own cache lives under the temporary folder.
 * Modules that use `import()` are compiled as Node compiles them: a `vm.Script` restored from
 * cached data loses its dynamic-import callback on Node 20.
 *
 * It also remembers how brine's requires resolved (installResolveCache), and starts the short
 * commands without V8's compilers to machine code for their first second (QUICK_START_MS), and
 * salt-minion without them until a job keeps the CPU busy (optimizeOnDemand, optimizeFromNow).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { Script } from 'node:vm';
import { textHashHex } from '../core/text-hash';
import { setV8Flags } from './v8-flags';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyModule = any;

/**
 * Node's CommonJS Module class, as every module's `module` holds it: requiring `node:module` loads
 * that public module's own code and its source-map support, 0.25 MiB of a command's peak RSS.
 */
const Module = module.constructor as AnyModule;

/** Where the cache lives, or undefined when it is turned off. */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.BRINE_COMPILE_CACHE;
  if (configured === '0') return undefined;
  if (configured) return configured;
  let uid: string;
  try {
    uid = String(userInfo().uid);
  } catch {
    uid = 'user';
  }
  return join(tmpdir(), `brine-compile-cache-${uid}`);
}

let enabled = false;

/**
 * How long a short command (salt-call, salt, salt-key, ...) runs before V8's compilers to machine
 * code, the optimizing one (TurboFan) and the baseline one (Sparkplug), are turned on. A command
 * that ends sooner runs its code in V8's interpreter, as most of it is run once: optimizing the
 * renderer and the YAML parser on background threads cost about 30 ms of CPU out of 400 and
 * saved nothing, and Sparkplug's code was 0.4 MiB of the `salt` CLI's peak RSS (47.3 -> 46.9 MiB
 * for `salt '*' test.ping`, 2026-12-07). A longer run (a big state tree, a loop in a template, a
 * wait for 10,000 returns) is compiled from then on as usual.
 */
export const QUICK_START_MS = 1000;

/** V8's flags while a process starts quietly (shortLived, optimizeOnDemand), and once it no longer does. */
const QUIET_COMPILERS = '--no-turbofan --no-sparkplug';
const ALL_COMPILERS = '--turbofan --sparkplug';

export interface CompileCacheOptions {
  /** A command that usually ends within a second: start without TurboFan and Sparkplug (see QUICK_START_MS). */
  shortLived?: boolean;
  /**
   * A daemon that is idle most of its life (salt-minion): without TurboFan and Sparkplug until
   * optimizeFromNow() (a job that keeps the CPU busy). TurboFan's own code is 3.6 MiB of a
   * process's resident pages once it has compiled anything (a settled idle minion: 57.7 -> 55.2
   * MiB, 2026-12-06).
   */
  optimizeOnDemand?: boolean;
  /**
   * The command (`salt`, `salt-call`, `salt-minion`...): a quiet process keeps its entries in a
   * folder of its own. V8 stores in an entry the functions the run that wrote it compiled, and
   * restores them all: the `salt` CLI read its config modules' entries as salt-call wrote them,
   * with the functions of a state run, 0.25 MiB of its peak RSS (2026-12-07).
   */
  command?: string;
}

/** Turns V8's compilers on, when this process started without them; undefined otherwise. */
let turnOnCompilers: (() => void) | undefined;
/** Runs just before the compilers are turned on: the code cache's last writes under the quiet flags. */
let beforeCompilers: (() => void) | undefined;

/**
 * V8's compilers to machine code on from now, in a process that started without them
 * (`shortLived`, `optimizeOnDemand`); nothing otherwise. Once on, they stay on.
 */
export function optimizeFromNow(): void {
  turnOnCompilers?.();
}

/**
 * Turns the cache on for the rest of this process (once; a cache that cannot be created is
 * skipped), and starts a quiet process (`shortLived`, `optimizeOnDemand`) without V8's compilers,
 * with or without a cache: bin/*'s `exec node` line may have turned them off already.
 */
export function enableCompileCache(dir: string | undefined = compileCacheDir(), options: CompileCacheOptions = {}): void {
  if (enabled) return;
  enabled = true;
  const quiet = options.shortLived === true || options.optimizeOnDemand === true;
  if (quiet) startQuietly(options.shortLived === true);
  if (dir === undefined || !isOwnFolder(dir)) return;
  // Other caches of compiled code (brine's Jinja templates) find the folder here.
  process.env.BRINE_COMPILE_CACHE = dir;
  installResolveCache(dir);
  skipPackageTypeChecks();
  // Node's own cache (Node 22.1), on the public module only; it checks V8's flags itself.
  const builtin =
    Number(process.versions.node.split('.')[0]) >= 22
      ? (require('node:module') as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache
      : undefined;
  if (typeof builtin === 'function') {
    builtin(dir);
    return;
  }
  if (!quiet) {
    installCodeCache(dir);
    return;
  }
  // V8 checks its flags when it reads cached code: the processes that start without its compilers
  // keep theirs apart from those that run with them, or each would reject and rewrite the other's.
  const own = join(dir, 'short', options.command ?? 'other');
  try {
    mkdirSync(own, { recursive: true, mode: 0o700 });
  } catch {
    // Already there (made by this user: the folder above is checked).
  }
  beforeCompilers = installCodeCache(own);
}

/** Whether `dir` is (or now is) a folder of this user's that no one else may write: code is read from there. */
function isOwnFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = statSync(dir);
    return st.isDirectory() && (!process.getuid || st.uid === process.getuid()) && (st.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** V8's compilers off from now until optimizeFromNow(); a short command's come on after QUICK_START_MS. */
function startQuietly(shortLived: boolean): void {
  setV8Flags(QUIET_COMPILERS);
  turnOnCompilers = () => {
    turnOnCompilers = undefined;
    beforeCompilers?.();
    setV8Flags(ALL_COMPILERS);
  };
  if (shortLived) setTimeout(optimizeFromNow, QUICK_START_MS).unref();
}

/** brine's own folder (the package root): only what resolves inside it is remembered. */
const ROOT = join(__dirname, '..', '..', '..');
/** ROOT as a prefix of the paths inside it (not of a sibling folder whose name starts the same). */
const ROOT_DIR = ROOT + sep;

/**
 * What identifies this installation's files: the build (tsc rewrites every file of dist, this one
 * too) and the installed packages (npm rewrites node_modules/.package-lock.json on every install).
 * Any change starts a new table.
 */
function installationStamp(): string {
  const parts = [process.version];
  for (const file of [__filename, join(ROOT, 'node_modules', '.package-lock.json'), join(ROOT, 'node_modules')]) {
    try {
      const st = statSync(file);
      parts.push(`${st.ino}.${st.mtimeMs}`);
    } catch {
      parts.push('-');
    }
  }
  return nameHash(parts.join(':'));
}

/**
 * A file name for a string: 64 bits of two FNV-1a-style hashes, as 16 hex digits. Not node:crypto,
 * which would load for this alone in the `salt` CLI (0.8 MiB of its peak). A collision costs only
 * speed: V8 rejects cached code whose source hash differs, and the entry is rewritten.
 */
export function nameHash(text: string): string {
  return textHashHex(text);
}

/**
 * Node looks up the nearest package.json of every `.js` file it requires, to refuse an ES module
 * (`"type": "module"`): for brine's own compiled files the answer is known (brine is CommonJS),
 * and the look-up, path work up the folders of ~200 files, was about 10 ms of a salt-call.
 */
function skipPackageTypeChecks(): void {
  const M = Module;
  const loadJs = M._extensions['.js'];
  const dist = `${ROOT_DIR}dist${sep}`;
  M._extensions['.js'] = function (this: unknown, module: AnyModule, filename: string) {
    if (!filename.startsWith(dist)) return loadJs.call(this, module, filename);
    module._compile(readFileSync(filename, 'utf8'), filename);
  };
}

/**
 * Remembers how `require` resolved each request of brine's modules (a folder and a name to a
 * file) from one run to the next: Node's resolution reads package.json files and tries file
 * names for each of the ~400 requires of a command, a third of its module loading. Only requests
 * made from brine's files and resolved to brine's files are kept, the table belongs to one
 * build and one install (see installationStamp), and a remembered file that is gone is resolved
 * again.
 */
function installResolveCache(dir: string): void {
  const M = Module;
  const resolveFilename = M._resolveFilename;
  const table = join(dir, `resolve-${installationStamp()}.json`);
  let loaded: Record<string, string> | undefined;
  try {
    loaded = JSON.parse(readFileSync(table, 'utf8')) as Record<string, string>;
  } catch {
    loaded = undefined;
  }
  // A new table: those of earlier builds and installs are of no more use.
  const stale = loaded === undefined;
  const known = loaded ?? {};
  let added = false;
  M._resolveFilename = function (request: string, parent: AnyModule, isMain: boolean, options: unknown) {
    const from = parent?.filename as string | undefined;
    if (options !== undefined || isMain || typeof from !== 'string' || !from.startsWith(ROOT_DIR)) {
      return resolveFilename.call(this, request, parent, isMain, options);
    }
    const key = `${dirname(from)}\0${request}`;
    const hit = known[key];
    if (hit !== undefined && existsSync(hit)) return hit;
    const filename = resolveFilename.call(this, request, parent, isMain, options) as string;
    if (filename.startsWith(ROOT_DIR)) {
      known[key] = filename;
      added = true;
    }
    return filename;
  };
  process.once('exit', () => {
    if (!added) return;
    try {
      if (stale) {
        for (const f of readdirSync(dir)) if (f.startsWith('resolve-') && join(dir, f) !== table) rmSync(join(dir, f), { force: true });
        removeOldEntries(dir);
      }
      const temp = `${table}.${process.pid}`;
      writeFileSync(temp, JSON.stringify(known));
      renameSync(temp, table);
    } catch {
      // A table that cannot be written costs only speed.
    }
  });
}

/**
 * Entries that are never read again, removed with the old resolution tables: those named as brine
 * named them before nameHash (a SHA-1 of the path, 40 hex digits), and those the quiet processes
 * shared in `short/` before each command had a folder there.
 */
function removeOldEntries(dir: string): void {
  const sweep = (folder: string, old: (name: string) => boolean) => {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      return;
    }
    for (const f of names) if (old(f)) rmSync(join(folder, f), { force: true });
  };
  sweep(dir, (f) => /^[0-9a-f]{40}$/.test(f));
  sweep(join(dir, 'short'), (f) => /^[0-9a-f]{16}(?:[0-9a-f]{24})?$/.test(f));
}

/**
 * Compiles brine's modules with the entries in `dir` and writes the missing ones when the process
 * exits. Returns what stops the writing for good, after writing what is pending: called when V8's
 * flags change (optimizeFromNow), as entries are read under the flags they were made with.
 */
function installCodeCache(dir: string): () => void {
  const M = Module;
  const compile = M.prototype._compile;
  const fresh: [string, Script][] = [];
  // Entries are written while the flags are those this folder's entries are read with.
  let writable = true;
  const flush = () => {
    for (const [entry, script] of fresh.splice(0)) {
      try {
        const temp = `${entry}.${process.pid}`;
        writeFileSync(temp, script.createCachedData());
        renameSync(temp, entry);
      } catch {
        // A cache that cannot be written costs only speed.
      }
    }
  };
  M.prototype._compile = function (this: AnyModule, content: string, filename: string) {
    if (/\bimport\s*\(/.test(content)) return compile.call(this, content, filename);
    // Plain concatenation, not path.join: this runs for each of ~400 modules.
    const entry = `${dir}${sep}${nameHash(filename)}`;
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(entry);
    } catch {
      cachedData = undefined;
    }
    // A shebang line is valid only at the very start of a file, not inside the wrapper.
    const source = content.startsWith('#!') ? `//${content}` : content;
    const script = new Script(M.wrap(source), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push([entry, script]);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, filename.slice(0, filename.lastIndexOf(sep)));
  };
  process.once('exit', () => {
    if (writable) flush();
  });
  return () => {
    flush();
    writable = false;
  };
}

/** The `require` a module's code gets, as Node builds it. */
function requireFor(mod: AnyModule): NodeJS.Require {
  const M = Module;
  const require = ((id: string) => mod.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) =>
    M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => M._resolveLookupPaths(request, mod);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = M._extensions;
  require.cache = M._cache;
  return require;
}
