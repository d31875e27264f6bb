/**
 * Salt's `file.manage_file` and `file.check_managed_changes` for one target and its new bytes:
 * the diff, owner and mode it would change (test mode), or the change made atomically, with the
 * `backup: minion` copy first. file.managed, file.serialize and file.recurse share it.
 */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { StateReturn } from 'brine/plugin';
import { isLink, realpathIfExists } from './file-paths';
import { atomicWrite, backupMinion, checkPerms, fail, isFile, lexists, ownerOf, permsDiffer } from './file-state-kit';
import { unifiedDiff } from './unified-diff';

export interface ManageOptions {
  user?: unknown;
  group?: unknown;
  /** Normalised ('0644'), or undefined to leave (or, for a new file, default) the mode. */
  mode?: string;
  /** Whether a new file reports its mode even when none was asked for (a file from `source`). */
  reportNewMode: boolean;
  makedirs: boolean;
  dirMode?: string;
  backup: unknown;
  showChanges: boolean;
  followSymlinks: boolean;
  /** The minion's cachedir, for `backup: minion`. */
  cachedir: string;
  test: boolean;
}

const isBinary = (b: Buffer): boolean => b.subarray(0, 8192).includes(0);

/** Salt's `get_diff` of the old and new bytes. */
function diffOf(old: Buffer, next: Buffer): string {
  if (isBinary(old) && isBinary(next)) return 'Replace binary file';
  if (isBinary(old)) return 'Replace binary file with text file';
  if (isBinary(next)) return 'Replace text file with binary file';
  return unifiedDiff(old.toString('utf8'), next.toString('utf8'));
}

const CHANGE_NOTE = '\nNote: No changes made, actual changes may\nbe different due to other states.';

/** The default mode of a new file: 0666 under the umask (Salt's manage_file). */
const newFileMode = (): number => 0o666 & ~process.umask();

/** Manage `name` to hold `data` (undefined: contents untouched, perms only). */
export function manageFile(ret: StateReturn, name: string, data: Buffer | undefined, o: ManageOptions): StateReturn {
  const changes = ret.changes as Record<string, unknown>;
  if (isFile(name) || isLink(name)) {
    const replaceLink = isLink(name) && !o.followSymlinks;
    const real = isLink(name) && o.followSymlinks ? realpathIfExists(name) : name;
    const current = replaceLink || !isFile(real) ? null : readFileSync(real);
    const differs = data !== undefined && (current === null || !current.equals(data));
    if (differs) {
      if (replaceLink) changes.diff = 'Replace symbolic link with regular file';
      else if (!o.showChanges) changes.diff = '<show_changes=False>';
      else changes.diff = diffOf(current ?? Buffer.alloc(0), data);
    }
    const perms = { user: o.user, group: o.group, mode: o.mode, followSymlinks: o.followSymlinks };
    if (o.test) {
      if (!replaceLink) Object.assign(changes, permsDiffer(real, perms));
      if (Object.keys(changes).length > 0) {
        ret.result = null;
        ret.comment = `The file ${name} is set to be changed${CHANGE_NOTE}`;
      } else ret.comment = `The file ${name} is in the correct state`;
      return ret;
    }
    if (differs) {
      if (o.backup === 'minion' && !replaceLink) backupMinion(real, o.cachedir);
      const target = replaceLink ? name : real;
      const keep = replaceLink ? newFileMode() : statSync(real).mode & 0o7777;
      try {
        atomicWrite(target, data, keep, replaceLink ? undefined : ownerOf(real));
      } catch (err) {
        delete changes.diff;
        return fail(ret, `Failed to commit change: ${(err as Error).message}`);
      }
    }
    checkPerms(replaceLink ? name : real, ret, perms, false);
    if (ret.result !== false)
      ret.comment = Object.keys(changes).length > 0 ? `File ${name} updated` : `File ${name} is in the correct state`;
    return ret;
  }
  // A new file.
  if (o.test) {
    ret.result = null;
    ret.changes = { newfile: name };
    ret.comment = `The file ${name} is set to be changed${CHANGE_NOTE}`;
    return ret;
  }
  const dir = dirname(name);
  if (!lexists(dir)) {
    if (!o.makedirs) return fail(ret, 'Parent directory not present');
    // Salt's dir_mode for parents made for a file: the file's mode with x wherever it has a bit.
    const dirMode =
      o.dirMode ??
      (o.mode === undefined
        ? undefined
        : o.mode
            .slice(-3)
            .split('')
            .map((d) => (d === '0' ? d : String(Number(d) | 1)))
            .join(''));
    mkdirSync(dir, { recursive: true, mode: dirMode === undefined ? undefined : parseInt(dirMode, 8) });
  }
  const mode = o.mode !== undefined ? parseInt(o.mode, 8) : newFileMode();
  try {
    atomicWrite(name, data ?? Buffer.alloc(0), mode);
  } catch (err) {
    return fail(ret, `Failed to commit change: ${(err as Error).message}`);
  }
  // Neither source nor contents: Salt touches an empty file and says so.
  if (data === undefined) changes.new = `file ${name} created`;
  else changes.diff = 'New file';
  if (o.mode !== undefined || o.reportNewMode) changes.mode = `0${mode.toString(8).padStart(3, '0')}`;
  checkPerms(name, ret, { user: o.user, group: o.group }, false);
  if (ret.result !== false) ret.comment = data === undefined ? 'Empty file' : `File ${name} updated`;
  return ret;
}
