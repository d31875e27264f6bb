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
  /** The files under the directory `prefix` (paths from the env root, sorted), as Salt's `cp.list_master`. */
  listFiles(saltenv: string, prefix: string): Promise<string[]>;
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

  async listFiles(saltenv: string, prefix: string): Promise<string[]> {
    const found = new Set<string>();
    const clean = prefix.replace(/^\/+|\/+$/g, '');
    if (clean.split('/').includes('..')) return [];
    for (const root of this.roots_[saltenv] ?? []) {
      const dir = join(root, clean);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) continue;
      for (const file of walk(dir)) found.add(relative(root, file).split(sep).join('/'));
    }
    return [...found].sort();
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

/** The minion's cache of the master's files, as the remote source needs it (FileCache implements it). */
export interface CachedFiles {
  cache(saltenv: string, path: string): Promise<string | null>;
  root(saltenv: string): string;
  readonly files: { list(saltenv: string, prefix: string): Promise<string[]>; envs?(): Promise<string[]> };
}

// `{% import 'x' %}`, `{% from "x" import ... %}`, `{% include 'x' %}`, `{% import_yaml 'x' as y %}` ...
const JINJA_REFERENCE = /\{%-?\s*(?:import|from|include|extends|import_yaml|import_json|import_text)\s+(['"])([^'"\n]+)\1/g;

/** The templates a Jinja text names with literal strings, as paths inside the saltenv. */
export function jinjaReferences(text: string, name: string): string[] {
  const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '';
  const out: string[] = [];
  for (const m of text.matchAll(JINJA_REFERENCE)) {
    const ref = m[2];
    if (!ref.startsWith('./') && !ref.startsWith('../')) {
      out.push(ref.replace(/^\/+/, ''));
      continue;
    }
    const parts = dir ? dir.split('/') : [];
    for (const step of ref.split('/')) {
      if (step === '..') parts.pop();
      else if (step !== '.' && step !== '') parts.push(step);
    }
    out.push(parts.join('/'));
  }
  return out;
}

/**
 * SLS files and `salt://` files from the master's file server through the minion's file cache
 * (Salt's `file_client: remote`). One instance serves one state run: each file is checked
 * against the master once per run. Jinja renders from the cache directory, so the templates an
 * SLS or template imports by a literal name are cached along with it (Salt's loader fetches
 * them as it meets them; a name computed at render time must already be in the cache).
 */
export class RemoteSlsSource implements SlsSource {
  private readonly seen = new Map<string, Promise<string | null>>();
  private readonly listings = new Map<string, Promise<string[]>>();

  constructor(private readonly cache: CachedFiles) {}

  roots(saltenv: string): string[] {
    return [this.cache.root(saltenv)];
  }

  async envs(): Promise<string[]> {
    return this.cache.files.envs ? this.cache.files.envs() : ['base'];
  }

  async getSls(saltenv: string, sls: string): Promise<SlsFile | null> {
    const rel = sls.split('.').join('/');
    for (const candidate of [`${rel}.sls`, `${rel}/init.sls`]) {
      // Only ask for what the master lists: a missing `x.sls` would otherwise cost a request.
      if (!(await this.listing(saltenv)).includes(candidate)) continue;
      const found = await this.getFile(saltenv, candidate);
      if (found) return { path: found.path, source: candidate, text: readFileSync(found.path, 'utf8') };
    }
    return null;
  }

  async getFile(saltenv: string, path: string): Promise<{ path: string } | null> {
    const local = await this.cached(saltenv, path.replace(/^\/+/, ''));
    return local === null ? null : { path: local };
  }

  async listFiles(saltenv: string, prefix: string): Promise<string[]> {
    const dir = prefix.replace(/^\/+|\/+$/g, '');
    return (await this.listing(saltenv)).filter((f) => dir === '' || f.startsWith(`${dir}/`)).sort();
  }

  async listSls(saltenv: string): Promise<string[]> {
    const found = new Set<string>();
    for (const rel of await this.listing(saltenv)) {
      if (!rel.endsWith('.sls')) continue;
      const base = rel.slice(0, -'.sls'.length);
      found.add((base.endsWith('/init') ? base.slice(0, -'/init'.length) : base).split('/').join('.'));
    }
    return [...found].sort();
  }

  private listing(saltenv: string): Promise<string[]> {
    let l = this.listings.get(saltenv);
    if (!l) {
      l = this.cache.files.list(saltenv, '');
      this.listings.set(saltenv, l);
    }
    return l;
  }

  /** The cached copy of `path`, checked against the master once per run. */
  private fetched(saltenv: string, path: string): Promise<string | null> {
    const key = `${saltenv}\0${path}`;
    let p = this.seen.get(key);
    if (!p) {
      p = this.cache.cache(saltenv, path);
      this.seen.set(key, p);
    }
    return p;
  }

  /** `path` and, transitively, the templates it names (each once: import cycles end). */
  private async cached(saltenv: string, path: string, visited = new Set<string>()): Promise<string | null> {
    visited.add(path);
    const local = await this.fetched(saltenv, path);
    if (local === null) return null;
    const data = readFileSync(local);
    if (data.subarray(0, 8000).includes(0)) return local; // binary: no Jinja in it
    const listed = await this.listing(saltenv);
    for (const ref of jinjaReferences(data.toString('utf8'), path)) {
      if (!visited.has(ref) && listed.includes(ref)) await this.cached(saltenv, ref, visited);
    }
    return local;
  }
}
