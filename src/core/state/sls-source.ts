/**
 * Where SLS files come from: the one interface the compiler reads them through. The local
 * implementation reads `file_roots` (Salt's `file_client: local`); the minion's file client
 * implements the same interface over the master's file server.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** An SLS file found in a saltenv. */
export interface SlsFile {
  /** Local path of the (cached) file. */
  path: string;
  /** `salt://` relative path: `a/b.sls` or `a/b/init.sls`. */
  source: string;
  text: string;
}

export interface SlsSource {
  /** The SLS `sls` (dotted name) of `saltenv`, or null when it does not exist. */
  getSls(saltenv: string, sls: string): Promise<SlsFile | null>;
  /** Every SLS name available in `saltenv` (for include globs and top-file targets). */
  listSls(saltenv: string): Promise<string[]>;
  /** The saltenvs the source serves. */
  envs(): Promise<string[]>;
  /** A `salt://` file (path relative to the env root), or null. */
  getFile(saltenv: string, path: string): Promise<{ path: string } | null>;
  /** Local directories holding the saltenv's files (where Jinja imports are looked up). */
  roots(saltenv: string): string[];
}

/** `file_roots` on this machine. */
export class LocalSlsSource implements SlsSource {
  constructor(private readonly roots_: Record<string, string[]>) {}

  roots(saltenv: string): string[] {
    return this.roots_[saltenv] ?? [];
  }

  async envs(): Promise<string[]> {
    return Object.keys(this.roots_);
  }

  async getSls(saltenv: string, sls: string): Promise<SlsFile | null> {
    const rel = sls.split('.').join('/');
    for (const candidate of [`${rel}.sls`, `${rel}/init.sls`]) {
      const found = await this.getFile(saltenv, candidate);
      if (found) return { path: found.path, source: candidate, text: readFileSync(found.path, 'utf8') };
    }
    return null;
  }

  async getFile(saltenv: string, path: string): Promise<{ path: string } | null> {
    const clean = path.replace(/^\/+/, '');
    if (clean === '' || clean.split('/').includes('..')) return null;
    for (const root of this.roots_[saltenv] ?? []) {
      const full = join(root, clean);
      if (existsSync(full) && statSync(full).isFile()) return { path: full };
    }
    return null;
  }

  async listSls(saltenv: string): Promise<string[]> {
    const found = new Set<string>();
    for (const root of this.roots_[saltenv] ?? []) {
      if (!existsSync(root)) continue;
      for (const file of walk(root)) {
        if (!file.endsWith('.sls')) continue;
        const rel = relative(root, file).split(sep).join('/').slice(0, -'.sls'.length);
        found.add(rel.endsWith('/init') ? rel.slice(0, -'/init'.length).split('/').join('.') : rel.split('/').join('.'));
      }
    }
    return [...found].sort();
  }
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile()) yield p;
  }
}
