/**
 * File helpers for the key store: atomic writes (temp file + rename, so a crash never leaves half a
 * key) and a small content cache keyed by (inode, size, mtime), so that re-reading an unchanged key
 * costs one stat, while a change made by another process (salt-key) is still seen at once.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';

interface CachedFile {
  ino: number;
  size: number;
  mtimeMs: number;
  text: string;
}

export class KeyFileCache {
  private readonly files = new Map<string, CachedFile>();

  /** The file's text, or undefined when it does not exist (or is not a regular file). */
  read(file: string): string | undefined {
    const st = statOrUndefined(file);
    if (!st || !st.isFile()) {
      this.files.delete(file);
      return undefined;
    }
    const known = this.files.get(file);
    if (known && known.ino === st.ino && known.size === st.size && known.mtimeMs === st.mtimeMs) return known.text;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if (isMissing(err)) return undefined; // removed between stat and read
      throw err;
    }
    this.files.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, text });
    return text;
  }

  forget(file: string): void {
    this.files.delete(file);
  }
}

export function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Write `text` to `file` atomically with `mode`: a dot-named temp file beside it, fsync, rename.
 * `durable: false` skips the fsync, for files whose loss in a power cut costs nothing (a pending
 * key: the minion sends it again at its next sign-in). At a thousand new minions the fsyncs were
 * seconds of the master's time.
 */
export function writeFileAtomic(file: string, text: string, mode: number, durable = true): void {
  // The temp name does not embed the file's: an id may use all 255 bytes a file name can have.
  const tmp = path.join(path.dirname(file), `.tmp.${process.pid}.${randomBytes(6).toString('hex')}`);
  const fd = openSync(tmp, 'wx', mode);
  try {
    fchmodSync(fd, mode); // the umask must not loosen or tighten what Salt expects
    writeSync(fd, text);
    if (durable) fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, file);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}
