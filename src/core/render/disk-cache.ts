/**
 * Where the render pipeline keeps what it derived from a text, across processes: the JavaScript
 * of compiled templates (jinja/template-cache.ts) and the data of loaded YAML (yaml-loader.ts).
 * A folder under brine's compile cache, used only when a command turned that cache on (it sets
 * `BRINE_COMPILE_CACHE`, see src/cli/compile-cache.ts) and only if it belongs to this user and
 * no one else may write to it. Entries are written to a temporary name and renamed, so
 * concurrent processes never read half an entry; a cache that cannot be written is skipped.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const folders = new Map<string, string | null>();

/** The cache folder `<compile cache>/<name>`, or null when there is none (checked once per process). */
export function renderCacheDir(name: string): string | null {
  const known = folders.get(name);
  if (known !== undefined) return known;
  folders.set(name, null);
  const base = process.env.BRINE_COMPILE_CACHE;
  if (!base || base === '0') return null;
  const path = join(base, name);
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    const st = statSync(path);
    if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) return null;
  } catch {
    return null;
  }
  folders.set(name, path);
  return path;
}

/** The entry file of `parts` (hashed) in a cache folder. */
export function cacheEntry(folder: string, parts: readonly string[], ext: string): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return join(folder, `${h.digest('hex')}.${ext}`);
}

export function readCacheEntry(entry: string): string | undefined {
  try {
    return readFileSync(entry, 'utf8');
  } catch {
    return undefined;
  }
}

export function writeCacheEntry(entry: string, text: string): void {
  try {
    const tmp = `${entry}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    renameSync(tmp, entry);
  } catch {
    // Only costs the next process the work again.
  }
}
