import { closeSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ProtocolError } from '../errors';

/** Salt's `file_roots`: saltenv -> directories, searched in order (the first holding a file wins). */
export type FileRoots = Record<string, string[]>;

/** Options of the roots file server (Salt's names). */
export interface FileServerOptions {
  file_roots: FileRoots;
  /** Bytes per `_serve_file` chunk. Salt's default 262144. */
  file_buffer_size?: number;
  /** Skip symlinked files when listing (Salt's `fileserver_ignoresymlinks`, default false). */
  fileserver_ignoresymlinks?: boolean;
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

function walk(dir: string, root: string, ignoreSymlinks: boolean, out: Set<string>): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = join(dir, e.name);
    if (e.isSymbolicLink()) {
      if (ignoreSymlinks || !inside(root, full)) continue;
      let st;
      try {
        st = statSync(full);
      } catch {
        continue; // dangling link
      }
      if (st.isFile()) out.add(relative(root, full).split(sep).join('/'));
      // Linked directories are not followed (Salt's fileserver_followsymlinks is about loops; keep it simple and safe).
      continue;
    }
    if (e.isDirectory()) walk(full, root, ignoreSymlinks, out);
    else if (e.isFile()) out.add(relative(root, full).split(sep).join('/'));
  }
}

/**
 * The master's answer to the aes request `_file_list` (`{saltenv, prefix}`): every file of the
 * saltenv's roots under `prefix`, relative to its root with `/`, sorted and without duplicates
 * (Salt's `fileserver.file_list`). An unknown saltenv is `[]`.
 *
 * @example
 * fileList({ file_roots: { base: ['/srv/salt'] } }, { cmd: '_file_list', saltenv: 'base', prefix: '_modules' })
 * // ['_modules/hello.ts']
 */
export function fileList(options: FileServerOptions, load: Record<string, unknown>): string[] {
  const saltenv = saltenvOf(load);
  if (saltenv === undefined) return [];
  const rawPrefix = field(load, 'prefix');
  const prefix = typeof rawPrefix === 'string' ? rawPrefix.replace(/^\/+|\/+$/g, '') : '';
  if (prefix.split('/').includes('..') || isAbsolute(prefix)) return [];
  const found = new Set<string>();
  for (const root of rootsOf(options.file_roots, saltenv)) {
    const start = prefix === '' ? root : join(root, prefix);
    if (prefix !== '' && !inside(root, start)) continue;
    walk(start, root, options.fileserver_ignoresymlinks === true, found);
  }
  return [...found].filter((f) => prefix === '' || f.startsWith(prefix)).sort();
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
