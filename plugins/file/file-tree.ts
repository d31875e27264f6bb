/**
 * Directory trees for file.directory (recurse, clean) and file.recurse: Salt's walk order,
 * `check_include_exclude`, `_find_keep_files` and `_clean_dir`.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CommandExecutionError, checkIncludeExclude as checkPaths } from 'brine/plugin';
import { isLink } from './file-paths';

/** One step of Python's `os.walk` (top-down): a directory, its subdirectories and other entries. */
export interface WalkStep {
  root: string;
  dirs: string[];
  files: string[];
}

/** `os.walk(top)` with Salt's max_depth (null: no limit); symlinks to directories count as files. */
export function walkTree(top: string, maxDepth: number | null = null): WalkStep[] {
  const out: WalkStep[] = [];
  const visit = (root: string, depth: number): void => {
    let entries;
    try {
      entries = readdirSync(root, { withFileTypes: true });
    } catch {
      return;
    }
    const dirs: string[] = [];
    const files: string[] = [];
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      (e.isDirectory() ? dirs : files).push(e.name);
    }
    out.push({ root, dirs, files });
    if (maxDepth !== null && depth >= maxDepth) return;
    for (const d of dirs) visit(join(root, d), depth + 1);
  };
  visit(top, 0);
  return out;
}

/** Salt's `check_include_exclude` (globs, or regular expressions after `E@`); a bad regex is a CommandExecutionError. */
export function checkIncludeExclude(path: string, includePat?: unknown, excludePat?: unknown): boolean {
  try {
    return checkPaths(path, includePat, excludePat);
  } catch (err) {
    throw new CommandExecutionError((err as Error).message);
  }
}

/** Salt's `_find_keep_files`: the kept paths and every directory above them up to `/`, and the root. */
export function keepWithParents(root: string, keep: Iterable<string>): Set<string> {
  const real = new Set<string>([root]);
  for (const k of keep) {
    let p = k;
    real.add(p);
    while (p !== dirname(p)) {
      p = dirname(p);
      real.add(p);
    }
  }
  return real;
}

/**
 * Salt's `_clean_dir`: what under `root` is neither kept nor excluded (exclude_pat, relative to the
 * root), removed unless `test`. A removed directory's contents are not listed again.
 */
export function cleanDir(root: string, keep: Iterable<string>, excludePat: unknown, test: boolean): string[] {
  const real = keepWithParents(root, keep);
  const removed: string[] = [];
  const visit = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    const dirs = names.filter((n) => !isLink(join(dir, n)) && isDirectory(join(dir, n)));
    const files = names.filter((n) => !dirs.includes(n));
    for (const n of [...dirs, ...files]) {
      const p = join(dir, n);
      if (real.has(p) || !checkIncludeExclude(relative(root, p), null, excludePat)) continue;
      removed.push(p);
      if (!test) rmSync(p, { recursive: true, force: true });
    }
    for (const d of dirs) visit(join(dir, d));
  };
  visit(root);
  return removed;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
