import { existsSync, readdirSync, readFileSync, statSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';
import { PluginDefinitionError } from '../api/errors';
import { readGrainsProvider, readModule } from '../api/metadata';
import { requirePluginFile } from './host-require';
import type { LoadProblem, PluginOrigin } from './registry';

/** The plugin classes one source exported. */
export interface DiscoveredPlugins {
  origin: PluginOrigin;
  modules: unknown[];
  grainsProviders: unknown[];
}

/** Which npm packages to load: a name pattern searched in node_modules dirs, and/or explicit names. */
export interface NpmPluginOptions {
  /** node_modules directories to search. */
  nodeModules: readonly string[];
  /** A glob on package names. Default `brine-plugin-*` (and `@*\/brine-plugin-*`). */
  pattern?: string;
  /** Packages to load by name whatever their name looks like. */
  packages?: readonly string[];
}

/** Sort a module file's exports into module classes and grains providers. */
export function classify(origin: PluginOrigin, exportsObj: Record<string, unknown>): DiscoveredPlugins {
  const values = new Set<unknown>(Object.values(exportsObj));
  if (typeof exportsObj === 'function') values.add(exportsObj);
  const modules = [...values].filter((v) => readModule(v) !== undefined);
  const grainsProviders = [...values].filter((v) => readGrainsProvider(v) !== undefined);
  return { origin, modules, grainsProviders };
}

function loadFile(file: string, found: DiscoveredPlugins[], problems: LoadProblem[], origin = file): void {
  try {
    const plugins = classify(origin, requirePluginFile(file, origin === file));
    if (plugins.modules.length === 0 && plugins.grainsProviders.length === 0) {
      throw new PluginDefinitionError(`${file} exports no @Module or @GrainsProvider class`);
    }
    found.push(plugins);
  } catch (err) {
    problems.push({ origin, error: err instanceof Error ? err : new Error(String(err)) });
  }
}

/**
 * Plugin files directly inside each module_dirs directory: `*.js`, `*.cjs` and `*.ts` (not
 * `.d.ts`), in name order. A file that throws while loading becomes a problem; the rest still load.
 *
 * @example
 * discoverModuleDirs(['/srv/brine/modules']) // { found: [{ origin: '/srv/brine/modules/pkgx.js', modules: [Pkgx], ... }], problems: [] }
 */
export function discoverModuleDirs(dirs: readonly string[]): { found: DiscoveredPlugins[]; problems: LoadProblem[]; files: string[] } {
  const found: DiscoveredPlugins[] = [];
  const problems: LoadProblem[] = [];
  const seen: string[] = [];
  for (const dir of dirs) {
    const abs = resolve(dir);
    if (!existsSync(abs) || !statSync(abs).isDirectory()) {
      problems.push({ origin: abs, error: new PluginDefinitionError(`module_dirs entry ${abs} is not a directory`) });
      continue;
    }
    const files = listDir(abs)
      .filter((e) => /\.(c?js|ts)$/.test(e.name) && !e.name.endsWith('.d.ts') && !isDir(abs, e))
      .map((e) => join(abs, e.name))
      .sort();
    for (const file of files) loadFile(file, found, problems);
    seen.push(...files);
  }
  return { found, problems, files: seen };
}

/** A folder's entries, without hidden ones (as a glob's `*` leaves them out). */
function listDir(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => !e.name.startsWith('.'));
  } catch {
    return [];
  }
}

function isDir(dir: string, entry: Dirent): boolean {
  if (!entry.isSymbolicLink()) return entry.isDirectory();
  try {
    return statSync(join(dir, entry.name)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The names in a node_modules folder that match `pattern` or `@*\/pattern`, sorted. A pattern
 * that is a plain prefix and `*` (the default `brine-plugin-*`) is matched on the folder's listing;
 * any other goes through glob, loaded only then (a dozen modules every command would pay for).
 */
function packageNames(root: string, pattern: string): string[] {
  const prefix = /^([^*?[\]{}()!+@\\/]*)\*$/.exec(pattern)?.[1];
  if (prefix === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { globSync } = require('glob') as typeof import('glob');
    return globSync([pattern, `@*/${pattern}`], { cwd: root, nodir: false }).sort();
  }
  const names: string[] = [];
  for (const entry of listDir(root)) {
    if (entry.name.startsWith(prefix)) names.push(entry.name);
    if (entry.name.startsWith('@') && isDir(root, entry)) {
      for (const inner of listDir(join(root, entry.name))) if (inner.name.startsWith(prefix)) names.push(`${entry.name}/${inner.name}`);
    }
  }
  return names.sort();
}

/**
 * The folders of the plugin packages installed in `options.nodeModules`, by package name; a name
 * found in an earlier folder hides the same name in a later one.
 *
 * @example
 * findPluginPackages({ nodeModules: ['/srv/brine-plugins/node_modules'] }) // Map { 'brine-plugin-hello' => '/srv/brine-plugins/node_modules/brine-plugin-hello' }
 */
export function findPluginPackages(options: NpmPluginOptions): Map<string, string> {
  const pattern = options.pattern ?? 'brine-plugin-*';
  const dirs = new Map<string, string>(); // package name -> dir
  for (const nm of options.nodeModules) {
    const root = resolve(nm);
    if (!existsSync(root)) continue;
    const matches = packageNames(root, pattern);
    for (const name of matches) if (!dirs.has(name)) dirs.set(name, join(root, name));
    for (const name of options.packages ?? []) {
      if (!dirs.has(name) && existsSync(join(root, name, 'package.json'))) dirs.set(name, join(root, name));
    }
  }
  return dirs;
}

/**
 * Installed npm plugin packages. A package names its entry file in package.json under `brine`
 * (`"brine": "dist/index.js"`, or `"brine": { "entry": "dist/index.js" }`); it should list brine
 * as a peer dependency. Its `require('brine/plugin')` gets the host's API.
 *
 * @example
 * discoverNpm({ nodeModules: ['/opt/brine/node_modules'] }) // loads every brine-plugin-* package there
 */
export function discoverNpm(options: NpmPluginOptions): { found: DiscoveredPlugins[]; problems: LoadProblem[] } {
  const found: DiscoveredPlugins[] = [];
  const problems: LoadProblem[] = [];
  const dirs = findPluginPackages(options);
  for (const name of options.packages ?? []) {
    if (!dirs.has(name))
      problems.push({ origin: `npm:${name}`, error: new PluginDefinitionError(`npm plugin package '${name}' is not installed`) });
  }
  for (const [name, dir] of dirs) {
    const origin = `npm:${name}`;
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { brine?: unknown };
      const entry = typeof pkg.brine === 'string' ? pkg.brine : (pkg.brine as { entry?: unknown } | undefined)?.entry;
      if (typeof entry !== 'string') {
        throw new PluginDefinitionError(`package '${name}' names no plugin entry`, {
          hint: 'Add "brine": "<entry file>" to its package.json',
        });
      }
      loadFile(resolve(dir, entry), found, problems, origin);
    } catch (err) {
      problems.push({ origin, error: err instanceof Error ? err : new Error(String(err)) });
    }
  }
  return { found, problems };
}
