/**
 * What the file states share: Salt's `_error`, `_check_user`, `check_perms`, the atomic write
 * (a temporary file in the target's directory, then rename) and the `backup: minion` copy.
 */
import { chmodSync, chownSync, copyFileSync, lchownSync, lstatSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { StateReturn } from 'brine/plugin';
import { gidToGroup, groupToGid, normalizeMode, uidToUser, userToUid } from './file-paths';

/** Salt's `_error`: result False with the comment. */
export function fail(ret: StateReturn, comment: string): StateReturn {
  ret.result = false;
  ret.comment = comment;
  return ret;
}

/** Salt's `normalize_mode`, None staying None: `750` -> '0750'. */
export function modeArg(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return normalizeMode(v);
}

/** Whether anything is at the path, a broken symlink included (Python's `os.path.lexists`). */
export function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Salt's `_check_user`: the text naming a missing user or group ('' in test mode, as Salt only warns). */
export function checkUser(user: unknown, group: unknown, test: boolean): string {
  let err = '';
  if (user !== undefined && user !== null && user !== '' && userToUid(user) === '') err += `User ${String(user)} is not available `;
  if (group !== undefined && group !== null && group !== '' && groupToGid(group) === '') err += `Group ${String(group)} is not available`;
  return test ? '' : err;
}

/** The temporary name beside `path` a change is written to before the rename. */
function tempBeside(path: string): string {
  return join(dirname(path), `.${basename(path)}.brine-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
}

/**
 * Write through a temporary file in the same directory, then rename: the target is either the
 * old file or the new one, never half-written. The new file keeps `mode` and, when given, owner.
 */
export function atomicWrite(path: string, data: string | Buffer, mode: number, owner?: { uid: number; gid: number }): void {
  const tmp = tempBeside(path);
  try {
    writeFileSync(tmp, data, { mode });
    chmodSync(tmp, mode);
    if (owner) chownQuiet(tmp, owner.uid, owner.gid);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Copy a file over `dst` atomically (shutil.copy's data and mode). */
export function atomicCopy(src: string, dst: string, mode: number): void {
  const tmp = tempBeside(dst);
  try {
    copyFileSync(src, tmp);
    chmodSync(tmp, mode);
    renameSync(tmp, dst);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

function chownQuiet(p: string, uid: number, gid: number): void {
  try {
    chownSync(p, uid, gid);
  } catch {
    // Not root: the file keeps the minion's owner, as Salt's copyfile leaves it.
  }
}

/** The owner to keep when a file is replaced (Salt's copyfile preserves it). */
export function ownerOf(p: string): { uid: number; gid: number } | undefined {
  try {
    const st = statSync(p);
    return { uid: st.uid, gid: st.gid };
  } catch {
    return undefined;
  }
}

/**
 * Salt's `backup_minion`: a copy of `path` under `<cachedir>/file_backup/<its directory>/` named
 * `<name>_<Day_Mon_DD_HH:MM:SS>_<microseconds>_<year>` (local time), owner and mode kept.
 */
export function backupMinion(path: string, cachedir: string, now = new Date()): string {
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][now.getDay()];
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][now.getMonth()];
  const p2 = (n: number): string => String(n).padStart(2, '0');
  const micros = String(now.getTime() * 1000 + Math.floor(Math.random() * 1000)).slice(-6);
  const stamp = `${day}_${month}_${p2(now.getDate())}_${p2(now.getHours())}:${p2(now.getMinutes())}:${p2(now.getSeconds())}_${micros}_${now.getFullYear()}`;
  const bkpath = join(cachedir, 'file_backup', dirname(path).slice(1), `${basename(path)}_${stamp}`);
  mkdirSync(dirname(bkpath), { recursive: true });
  copyFileSync(path, bkpath);
  const st = statSync(path);
  chownQuiet(bkpath, st.uid, st.gid);
  chmodSync(bkpath, st.mode & 0o7777);
  return bkpath;
}

export interface Perms {
  user?: unknown;
  group?: unknown;
  mode?: string;
  followSymlinks?: boolean;
}

const same = (want: unknown, name: string | number, id: number): boolean => want === name || want === id || String(want) === String(id);

/**
 * Salt's `file.check_perms`: the owner and mode the path should have. In test mode only the
 * changes it would make (`user`, `group`, `mode`); otherwise it makes them. Comments of failures
 * are joined to `ret.comment` with '; '.
 */
export function checkPerms(path: string, ret: StateReturn, want: Perms, test: boolean): StateReturn {
  const follow = want.followSymlinks ?? false;
  const st = () => (follow ? statSync(path) : lstatSync(path));
  const cur = st();
  const isLink = lstatSync(path).isSymbolicLink();
  const changes = ret.changes as Record<string, unknown>;
  const comments: string[] = [];
  const userOk = (s: { uid: number }): boolean => !want.user || same(want.user, uidToUser(s.uid), s.uid);
  const groupOk = (s: { gid: number }): boolean => !want.group || same(want.group, gidToGroup(s.gid), s.gid);
  const modeNow = (s: { mode: number }): string => normalizeMode((s.mode & 0o7777).toString(8));
  const chownNeeded = !userOk(cur) || !groupOk(cur);
  let modeChanged = false;
  if (!test) {
    if (chownNeeded) {
      const uid = want.user ? userToUid(want.user) : cur.uid;
      const gid = want.group ? groupToGid(want.group) : cur.gid;
      try {
        (isLink && !follow ? lchownSync : chownSync)(path, uid === '' ? cur.uid : uid, gid === '' ? cur.gid : gid);
        if (!isLink) chmodSync(path, cur.mode & 0o7777);
      } catch (err) {
        comments.push((err as Error).message);
      }
    }
    if (want.mode !== undefined && !(isLink && !follow) && want.mode !== modeNow(cur)) {
      chmodSync(path, parseInt(want.mode, 8));
      modeChanged = true;
    }
  }
  const post = st();
  if (want.user && !userOk(post)) {
    if (test) changes.user = want.user;
    else comments.push(`Failed to change user to ${String(want.user)}`);
  } else if (want.user && !userOk(cur)) changes.user = want.user;
  if (want.group && !groupOk(post)) {
    if (test) changes.group = want.group;
    else comments.push(`Failed to change group to ${String(want.group)}`);
  } else if (want.group && !groupOk(cur)) changes.group = want.group;
  if (want.mode !== undefined && !(isLink && !follow)) {
    if (want.mode !== modeNow(post)) {
      if (test) changes.mode = want.mode;
      else comments.push(`Failed to change mode to ${want.mode}`);
    } else if (modeChanged) changes.mode = want.mode;
  }
  if (comments.length > 0) {
    ret.result = false;
    ret.comment = [ret.comment, ...comments].filter(Boolean).join('; ');
  }
  if (test && Object.keys(changes).length > 0) ret.result = null;
  return ret;
}

/** Whether the path would need a change of owner or mode (no change made). */
export function permsDiffer(path: string, want: Perms): Record<string, unknown> {
  const probe: StateReturn = { name: path, changes: {}, result: true, comment: '' };
  return checkPerms(path, probe, want, true).changes as Record<string, unknown>;
}
