/**
 * Path facts the file module shares between its functions, with Salt's conventions: `~` expanded,
 * modes as Salt's `normalize_mode` writes them, owners as names with the number as fallback.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  createReadStream,
  existsSync,
  lstatSync,
  openSync,
  readSync,
  readdirSync,
  realpathSync,
  statSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CommandExecutionError, InvocationError, fnmatch, groupById, groupByName, userById, userByName } from 'brine/plugin';

/** Python's `os.path.expanduser` for the minion's own user. */
export function expandUser(path: string): string {
  if (path === '~') return homedir();
  if (path.startsWith('~/')) return homedir() + path.slice(1);
  const m = /^~([^/]+)(\/.*)?$/.exec(path);
  if (m) {
    const user = userByName(m[1]);
    if (user) return user.dir + (m[2] ?? '');
  }
  return path;
}

/** The path, expanded, refused unless absolute (Salt's wording differs per function: `what`). */
export function absolute(path: string, message = `File path must be absolute: ${path}`): string {
  const p = expandUser(path);
  if (!isAbsolute(p)) throw new InvocationError(message);
  return p;
}

/** Salt's `normalize_mode`: '0644', '4755', '0000'. */
export function normalizeMode(mode: unknown): string {
  const text = String(mode)
    .replace('0o', '0')
    .replace(/^["']|["']$/g, '');
  return text.replace(/^0+/, '').padStart(4, '0');
}

/** Salt's `uid_to_user`: the name, or the uid itself when no user has it. */
export const uidToUser = (uid: number): string | number => userById(uid)?.name ?? uid;
/** Salt's `gid_to_group`: the name, or the gid itself when no group has it. */
export const gidToGroup = (gid: number): string | number => groupById(gid)?.name ?? gid;

/** Salt's `user_to_uid`: a number stays, a name is looked up, '' when unknown. */
export function userToUid(user: unknown): number | '' {
  if (typeof user === 'number') return user;
  if (user === null || user === undefined) return process.getuid?.() ?? 0;
  return userByName(String(user))?.uid ?? '';
}

/** Salt's `group_to_gid`: a number stays, a name is looked up, '' when unknown or None. */
export function groupToGid(group: unknown): number | '' {
  if (group === null || group === undefined) return '';
  if (typeof group === 'number') return group;
  return groupByName(String(group))?.gid ?? '';
}

/** Seconds as Python's float `st_*time`. */
const seconds = (ns: bigint): number => Number(ns) / 1e9;

function kind(st: BigIntStats): string {
  if (st.isSymbolicLink()) return 'link';
  if (st.isDirectory()) return 'dir';
  if (st.isCharacterDevice()) return 'char';
  if (st.isBlockDevice()) return 'block';
  if (st.isFIFO()) return 'pipe';
  if (st.isSocket()) return 'socket';
  return 'file';
}

/** stat or lstat, null when the path does not exist. */
export function statOf(path: string, followSymlinks = true): BigIntStats | null {
  try {
    return followSymlinks ? statSync(path, { bigint: true }) : lstatSync(path, { bigint: true });
  } catch {
    try {
      // A broken symlink: Salt falls back to lstat.
      return lstatSync(path, { bigint: true });
    } catch {
      return null;
    }
  }
}

/** Salt's `file.stats` without the hash. */
export function stats(path: string, followSymlinks = true): Record<string, unknown> {
  const st = statOf(path, followSymlinks);
  if (!st) throw new CommandExecutionError(`Path not found: ${path}`);
  return {
    inode: Number(st.ino),
    uid: Number(st.uid),
    gid: Number(st.gid),
    group: gidToGroup(Number(st.gid)),
    user: uidToUser(Number(st.uid)),
    atime: seconds(st.atimeNs),
    mtime: seconds(st.mtimeNs),
    ctime: seconds(st.ctimeNs),
    size: Number(st.size),
    mode: normalizeMode((Number(st.mode) & 0o7777).toString(8)),
    type: kind(st),
  };
}

/** Hash lengths in hex digits, as Salt's HASHES_REVMAP. */
export const HASH_BY_LENGTH: Record<number, string> = { 32: 'md5', 40: 'sha1', 56: 'sha224', 64: 'sha256', 96: 'sha384', 128: 'sha512' };

/** The hex digest of a file, read in chunks. */
export async function fileHash(path: string, form: string): Promise<string> {
  if (!Object.values(HASH_BY_LENGTH).includes(form)) {
    throw new InvocationError(`Invalid hash type '${form}'. Supported: ${Object.values(HASH_BY_LENGTH).join(', ')}`);
  }
  const hash = createHash(form);
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (err) {
    throw new CommandExecutionError(`Unable to read ${path}: ${(err as Error).message}`);
  }
  return hash.digest('hex');
}

/** Salt's `write`/`append`/`prepend` take their lines as `*args` or as `args=` (one or a list). */
export function linesOf(args: unknown[], kwargs: Record<string, unknown>): unknown[] {
  if ('args' in kwargs) return Array.isArray(kwargs.args) ? kwargs.args : [kwargs.args];
  return args;
}

/** A Python value in a line, as f"{value}" writes it. */
export const text = (v: unknown): string => (typeof v === 'boolean' ? (v ? 'True' : 'False') : v === null ? 'None' : String(v));

export function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Whether a file looks like text (Salt's `files.is_text`: no NUL in the first block). */
export function isText(p: string): boolean {
  const fd = openSync(p, 'r');
  try {
    const buf = Buffer.alloc(512);
    const n = readSync(fd, buf, 0, 512, 0);
    return !buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

/** Write `after` over `path` keeping its inode, owner and mode; the old text goes to `path+backup`. */
export function rewrite(path: string, before: string, after: string, backup: string | false): void {
  if (backup) {
    copyFileSync(path, `${path}${backup}`);
    const st = statSync(path);
    chmodSync(`${path}${backup}`, st.mode & 0o7777);
    try {
      chownSync(`${path}${backup}`, st.uid, st.gid);
    } catch {
      // Not root: the backup keeps the minion's owner.
    }
  }
  writeFileSync(path, after);
}

/** A backup suffix: Salt's '' or False mean none. */
export const backupOf = (v: unknown): string | false => (v === false || v === '' || v === null || v === 'False' ? false : String(v));

/** os.path.realpath: the resolved path, or the path itself when it does not exist. */
export function realpathIfExists(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** Python's `strerror` for a Node error: 'No such file or directory'. */
export function strerror(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const texts: Record<string, string> = {
    ENOENT: 'No such file or directory',
    EACCES: 'Permission denied',
    EEXIST: 'File exists',
    ENOTDIR: 'Not a directory',
    EISDIR: 'Is a directory',
    ENOTEMPTY: 'Directory not empty',
    EPERM: 'Operation not permitted',
  };
  return (code && texts[code]) || (err as Error).message;
}

/** Python's `glob.glob` for one pattern, sorted; a plain path when it exists (a broken link too). */
export function globPaths(pattern: string): string[] {
  if (!/[*?[]/.test(pattern)) return existsSync(pattern) || isLink(pattern) ? [pattern] : [];
  const parts = pattern.split('/');
  const absolute = parts[0] === '';
  let current = [absolute ? '/' : '.'];
  for (const part of parts.slice(absolute ? 1 : 0)) {
    if (part === '') continue;
    const next: string[] = [];
    for (const dir of current) {
      if (!/[*?[]/.test(part)) {
        const p = join(dir, part);
        if (existsSync(p) || isLink(p)) next.push(p);
        continue;
      }
      let entries: string[] = [];
      try {
        entries = readdirSync(dir);
      } catch {
        continue;
      }
      // Python's glob skips dot files unless the pattern starts with a dot.
      for (const e of entries) if ((!e.startsWith('.') || part.startsWith('.')) && fnmatch(part, e)) next.push(join(dir, e));
    }
    current = next;
  }
  return current.map((p) => (absolute ? p : p.replace(/^\.\//, ''))).sort();
}

/** Run a filesystem call; an OS error becomes Salt's one-line CommandExecutionError. */
export function guard(fn: () => void, path: string): void {
  try {
    fn();
  } catch (err) {
    throw new CommandExecutionError(`${strerror(err)}: '${path}'`);
  }
}
