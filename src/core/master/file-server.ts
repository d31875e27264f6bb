import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ConfigError, ProtocolError } from '../errors';

/** Salt's `file_roots`: saltenv -> directories, searched in order (the first holding a file wins). */
export type FileRoots = Record<string, string[]>;

/** Options of the roots file server (Salt's names). */
export interface FileServerOptions {
  file_roots: FileRoots;
  /** Bytes per `_serve_file` chunk. Salt's default 262144. */
  file_buffer_size?: number;
  /** Skip symlinked files when listing (Salt's `fileserver_ignoresymlinks`, default false). */
  fileserver_ignoresymlinks?: boolean;
  /** The digest of `_file_hash` (Salt's master `hash_type`, default sha256). */
  hash_type?: string;
}

/** Salt's `_serve_file` reply: one chunk of `dest` from `loc`; empty `data` = end of file (or no such file when `dest` is ''). */
export interface ServeFileReply {
  data: Buffer | string;
  dest: string;
  gzip?: number;
}

export const DEFAULT_FILE_BUFFER_SIZE = 262144;

function field(load: Record<string, unknown>, name: string): unknown {
  return Object.prototype.hasOwnProperty.call(load, name) ? load[name] : undefined;
}

/** The roots of a saltenv named over the wire: own keys only (`__proto__` is not an environment). */
function rootsOf(roots: FileRoots, saltenv: string): string[] {
  const dirs = Object.hasOwn(roots, saltenv) ? roots[saltenv] : undefined;
  return Array.isArray(dirs) ? dirs : [];
}

function saltenvOf(load: Record<string, unknown>): string | undefined {
  const env = field(load, 'saltenv');
  if (env === undefined || env === null) return undefined;
  return String(env);
}

/** A `salt://path?saltenv=x` or plain relative path as Salt's fileserver takes it: the path, and the saltenv the URL names. */
function splitSaltUrl(path: string): { path: string; saltenv?: string } {
  let p = path.startsWith('salt://') ? path.slice('salt://'.length) : path;
  let saltenv: string | undefined;
  const q = p.indexOf('?');
  if (q !== -1 && !p.startsWith('|')) {
    const params = new URLSearchParams(p.slice(q + 1));
    saltenv = params.get('saltenv') ?? undefined;
    p = p.slice(0, q);
  }
  if (p.startsWith('|')) p = p.slice(1);
  return { path: p, saltenv };
}

/** Whether `full` (after symlinks) is still inside `root`. */
function inside(root: string, full: string): boolean {
  let real: string;
  let realRoot: string;
  try {
    real = realpathSync(full);
    realRoot = realpathSync(root);
  } catch {
    return false;
  }
  const rel = relative(realRoot, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Salt's `roots.find_file`: the first root of the saltenv holding `path` as a file. Absolute
 * paths, `..` steps, and paths that resolve (through symlinks) outside their root are refused,
 * as Salt's `clean_path` check refuses them.
 *
 * @example
 * findFile({ base: ['/srv/salt'] }, '_modules/hello.ts', 'base') // { path: '/srv/salt/_modules/hello.ts', rel: '_modules/hello.ts' }
 */
export function findFile(roots: FileRoots, path: string, saltenv: string): { path: string; rel: string } | null {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) return null;
  if (isAbsolute(path) || path.split(/[\\/]/).includes('..')) return null;
  for (const root of rootsOf(roots, saltenv)) {
    const full = resolve(root, path);
    try {
      if (!statSync(full).isFile()) continue;
    } catch {
      continue;
    }
    if (!inside(root, full)) continue;
    return { path: full, rel: path };
  }
  return null;
}

/** What one saltenv's roots hold, as Salt's `roots._file_lists` gathers it (paths relative, with `/`). */
export interface RootsListing {
  files: Set<string>;
  dirs: Set<string>;
  emptyDirs: Set<string>;
  /** Symlink path -> its target as written in the link. */
  links: Map<string, string>;
}

function walk(dir: string, root: string, ignoreSymlinks: boolean, out: RootsListing): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = join(dir, e.name);
    const rel = relative(root, full).split(sep).join('/');
    if (e.isSymbolicLink()) {
      // Links leading outside the root are neither listed nor served (stricter than Salt's default).
      if (ignoreSymlinks || !inside(root, full)) continue;
      let st;
      try {
        st = statSync(full);
      } catch {
        continue; // dangling link
      }
      out.links.set(rel, readlinkSync(full));
      if (st.isFile()) out.files.add(rel);
      // Linked directories are listed but not followed (no loops).
      else if (st.isDirectory()) out.dirs.add(rel);
      continue;
    }
    if (e.isDirectory()) {
      out.dirs.add(rel);
      let empty = false;
      try {
        empty = readdirSync(full).length === 0;
      } catch {
        // unreadable: not listed as empty
      }
      if (empty) out.emptyDirs.add(rel);
      walk(full, root, ignoreSymlinks, out);
    } else if (e.isFile()) out.files.add(rel);
  }
}

/** Every file, directory, empty directory and symlink of a saltenv's roots. */
export function listRoots(options: FileServerOptions, saltenv: string): RootsListing {
  const out: RootsListing = { files: new Set(), dirs: new Set(), emptyDirs: new Set(), links: new Map() };
  for (const root of rootsOf(options.file_roots, saltenv)) walk(root, root, options.fileserver_ignoresymlinks === true, out);
  return out;
}

/** The load's `prefix` as Salt's fileserver strips it; `null` when it tries to leave the roots. */
function prefixOf(load: Record<string, unknown>): string | null {
  const raw = field(load, 'prefix');
  const prefix = typeof raw === 'string' ? raw.replace(/^\/+|\/+$/g, '') : '';
  if (prefix.split('/').includes('..') || isAbsolute(prefix)) return null;
  return prefix;
}

function listed(options: FileServerOptions, load: Record<string, unknown>, form: 'files' | 'dirs' | 'emptyDirs'): string[] {
  const saltenv = saltenvOf(load);
  const prefix = prefixOf(load);
  if (saltenv === undefined || prefix === null) return [];
  return [...listRoots(options, saltenv)[form]].filter((f) => f.startsWith(prefix)).sort();
}

/**
 * The master's answer to the aes request `_file_list` (`{saltenv, prefix}`): every file of the
 * saltenv's roots whose path starts with `prefix`, relative to its root with `/`, sorted and
 * without duplicates (Salt's `fileserver.file_list`). An unknown saltenv is `[]`.
 *
 * @example
 * fileList({ file_roots: { base: ['/srv/salt'] } }, { cmd: '_file_list', saltenv: 'base', prefix: '_modules' })
 * // ['_modules/hello.ts']
 */
export function fileList(options: FileServerOptions, load: Record<string, unknown>): string[] {
  return listed(options, load, 'files');
}

/** `_dir_list` (`{saltenv, prefix}`): every directory below the roots (not the roots themselves), sorted. */
export function dirList(options: FileServerOptions, load: Record<string, unknown>): string[] {
  return listed(options, load, 'dirs');
}

/** `_file_list_emptydirs` (`{saltenv, prefix}`): the directories holding nothing, sorted. */
export function fileListEmptyDirs(options: FileServerOptions, load: Record<string, unknown>): string[] {
  return listed(options, load, 'emptyDirs');
}

/** `_symlink_list` (`{saltenv, prefix}`): symlink path -> the target written in the link (Salt's `roots.symlink_list`). */
export function symlinkList(options: FileServerOptions, load: Record<string, unknown>): Record<string, string> {
  const saltenv = saltenvOf(load);
  const prefix = prefixOf(load);
  if (saltenv === undefined || prefix === null) return {};
  const out: Record<string, string> = {};
  for (const [path, target] of [...listRoots(options, saltenv).links].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (path.startsWith(prefix)) out[path] = target;
  }
  return out;
}

/** `_file_envs`: the saltenvs of file_roots, sorted (Salt's `roots.envs`). */
export function fileEnvs(options: FileServerOptions): string[] {
  return Object.keys(options.file_roots).sort();
}

/** A file as Salt's `find_file` returns it: `{path, rel}` empty when not found, else with `stat` and `back`. */
export interface FoundFile {
  path: string;
  rel: string;
  stat?: number[];
  back?: string;
}

/** `os.stat` as the list Salt sends: mode, ino, dev, nlink, uid, gid, size, atime, mtime, ctime (whole seconds). */
function statList(path: string): number[] {
  const st = statSync(path);
  return [
    st.mode,
    st.ino,
    st.dev,
    st.nlink,
    st.uid,
    st.gid,
    st.size,
    Math.floor(st.atimeMs / 1000),
    Math.floor(st.mtimeMs / 1000),
    Math.floor(st.ctimeMs / 1000),
  ];
}

/** Salt's `Fileserver.find_file` over a load's `path` (a `salt://` URL may name its saltenv) and `saltenv`. */
function locate(options: FileServerOptions, load: Record<string, unknown>): FoundFile {
  const rawPath = field(load, 'path');
  const saltenv = saltenvOf(load) ?? 'base';
  if (typeof rawPath !== 'string' || rawPath === '') return { path: '', rel: '' };
  const url = splitSaltUrl(rawPath);
  const fnd = findFile(options.file_roots, url.path, url.saltenv ?? saltenv);
  if (!fnd) return { path: '', rel: '' };
  return { path: fnd.path, rel: fnd.rel, stat: statList(fnd.path), back: 'roots' };
}

/** `_file_find` (`{path, saltenv}`): where the master holds the file, `{path: '', rel: ''}` when nowhere. */
export function fileFind(options: FileServerOptions, load: Record<string, unknown>): FoundFile {
  return locate(options, load);
}

/** Hex digests by path, kept while the file's mtime and size stay the same (Salt caches them on disk). */
const hashes = new Map<string, { key: string; hsum: string }>();

/**
 * `_file_hash` (`{path, saltenv}`): `{hsum, hash_type}` with the master's `hash_type` (default
 * sha256); `''` when a field is missing or no root holds the file, as Salt answers.
 */
export function fileHash(options: FileServerOptions, load: Record<string, unknown>): { hsum: string; hash_type: string } | '' {
  if (field(load, 'path') === undefined || saltenvOf(load) === undefined) return '';
  const fnd = locate(options, load);
  if (!fnd.back) return '';
  const hashType = options.hash_type ?? 'sha256';
  const st = statSync(fnd.path);
  const key = `${hashType}:${st.mtimeMs}:${st.size}`;
  let memo = hashes.get(fnd.path);
  if (memo?.key !== key) {
    let hsum: string;
    try {
      hsum = createHash(hashType).update(readFileSync(fnd.path)).digest('hex');
    } catch (cause) {
      throw new ConfigError('BAD_CONFIG', `hash_type ${JSON.stringify(hashType)} is not a hash this master can compute`, {
        cause,
        hint: 'set hash_type to sha256, sha512, sha1 or md5',
      });
    }
    memo = { key, hsum };
    if (hashes.size >= 4096) hashes.delete(hashes.keys().next().value as string);
    hashes.set(fnd.path, memo);
  }
  return { hsum: memo.hsum, hash_type: hashType };
}

/** `_file_hash_and_stat`: `[hash, stat]` as `_file_hash` and `_file_find` give them; `['', null]` when not found. */
export function fileHashAndStat(
  options: FileServerOptions,
  load: Record<string, unknown>,
): [{ hsum: string; hash_type: string } | '', number[] | null] {
  const hash = fileHash(options, load);
  if (hash === '') return ['', null];
  return [hash, locate(options, load).stat ?? null];
}

/**
 * The master's answer to the aes request `_serve_file` (`{path, loc, saltenv, gzip?}`): up to
 * `file_buffer_size` bytes of the file from offset `loc`, with `dest` = the path relative to its
 * root (Salt's `roots.serve_file`). A missing field or file gives `{data: '', dest: ''}`, as in
 * Salt; `gzip` (a level 1-9) compresses non-empty chunks and is echoed back.
 * A `loc` that is not a non-negative integer is a `ProtocolError BAD_LOAD`.
 *
 * @example
 * serveFile(opts, { cmd: '_serve_file', path: '_modules/hello.ts', loc: 0, saltenv: 'base' })
 * // { data: <Buffer ...>, dest: '_modules/hello.ts' }
 */
export function serveFile(options: FileServerOptions, load: Record<string, unknown>): ServeFileReply {
  const empty: ServeFileReply = { data: '', dest: '' };
  const rawPath = field(load, 'path');
  const loc = field(load, 'loc');
  let saltenv = saltenvOf(load);
  if (typeof rawPath !== 'string' || loc === undefined || saltenv === undefined) return empty;
  if (typeof loc !== 'number' || !Number.isSafeInteger(loc) || loc < 0) {
    throw new ProtocolError('BAD_LOAD', `_serve_file loc must be a non-negative integer, got ${JSON.stringify(loc)}`);
  }
  const url = splitSaltUrl(rawPath);
  saltenv = url.saltenv ?? saltenv;
  const fnd = findFile(options.file_roots, url.path, saltenv);
  if (!fnd) return empty;
  const size = options.file_buffer_size ?? DEFAULT_FILE_BUFFER_SIZE;
  const buf = Buffer.alloc(size);
  const fd = openSync(fnd.path, 'r');
  let n: number;
  try {
    n = readSync(fd, buf, 0, size, loc);
  } finally {
    closeSync(fd);
  }
  let data: Buffer = buf.subarray(0, n);
  const reply: ServeFileReply = { data, dest: fnd.rel };
  const gzip = field(load, 'gzip');
  if (gzip !== undefined && gzip !== null && gzip !== false && data.length > 0) {
    const level = Number(gzip);
    if (!Number.isInteger(level) || level < 1 || level > 9) {
      throw new ProtocolError('BAD_LOAD', `_serve_file gzip must be a compression level 1-9, got ${JSON.stringify(gzip)}`);
    }
    data = gzipSync(data, { level });
    reply.data = data;
    reply.gzip = level;
  }
  return reply;
}
