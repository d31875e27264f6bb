import Module from 'node:module';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { PluginDefinitionError } from '../api/errors';

/**
 * Loading external plugins (module_dirs files, npm packages) with Node's own `require`, so that
 * `require('brine/plugin')` inside them returns THIS process's API module: the same decorators,
 * metadata store and tsyringe. Without it an npm plugin would get its own copy of brine from its
 * node_modules (or none at all), and its metadata would be invisible to the host.
 *
 * How: the id `brine/plugin` is resolved to a fixed cache key whose `require.cache` entry holds
 * the host's API exports. The hook touches only that exact id; every other request resolves as
 * usual. It is installed once per process, the first time an external plugin is loaded.
 */
const HOST_API_KEY = '\0brine-host:brine/plugin';

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
interface ModuleInternals {
  _resolveFilename: ResolveFilename;
  _cache: Record<string, unknown>;
  _nodeModulePaths(dir: string): string[];
}
interface CompilableModule {
  filename: string;
  paths: string[];
  loaded: boolean;
  exports: unknown;
  _compile(source: string, filename: string): void;
}

const internals = Module as unknown as ModuleInternals;
let installed = false;

/** Make `require('brine/plugin')` return `api` in every module loaded from now on. Idempotent. */
export function shareHostApi(api: object): void {
  const cached = new Module(HOST_API_KEY) as unknown as CompilableModule;
  cached.exports = api;
  cached.loaded = true;
  internals._cache[HOST_API_KEY] = cached;
  if (installed) return;
  const original = internals._resolveFilename;
  internals._resolveFilename = function resolveBrinePlugin(request, parent, isMain, options) {
    if (request === 'brine/plugin') return HOST_API_KEY;
    return original.call(this, request, parent, isMain, options);
  };
  installed = true;
}

/** Whether the `typescript` package can be loaded, for `.ts` plugin files. */
function loadTypeScript(): typeof import('typescript') | undefined {
  try {
    return require('typescript') as typeof import('typescript');
  } catch {
    return undefined;
  }
}

function transpileWith(ts: typeof import('typescript'), source: string, fileName: string): string {
  return ts.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      esModuleInterop: true,
    },
  }).outputText;
}

/**
 * A TypeScript plugin source as CommonJS JavaScript (what `saltutil.sync_modules` stores), with
 * the `typescript` package's `transpileModule`. Throws `PluginDefinitionError` when it is not
 * installed.
 *
 * @example
 * transpilePluginSource("export const x: number = 1;", 'x.ts') // '"use strict";\n...exports.x = 1;\n'
 */
export function transpilePluginSource(source: string, fileName: string): string {
  const ts = loadTypeScript();
  if (!ts) {
    throw new PluginDefinitionError(`cannot compile ${fileName}: TypeScript plugins need the 'typescript' package`, {
      hint: 'Install typescript next to brine, or put compiled .js files in _modules',
    });
  }
  return transpileWith(ts, source, fileName);
}

/**
 * Drop every cached module loaded from inside `dirs`, so the next load reads the files again
 * (module reload after a sync). The host's own modules are never inside module dirs.
 */
export function forgetPluginFiles(dirs: readonly string[]): void {
  // require caches a file under its real path: a symlinked package (`npm install ./folder`) too.
  const real = dirs.map((d) => {
    try {
      return realpathSync(d);
    } catch {
      return d;
    }
  });
  const prefixes = [...new Set([...dirs, ...real])].map((d) => (d.endsWith('/') ? d : `${d}/`));
  for (const key of Object.keys(internals._cache)) {
    if (prefixes.some((p) => key.startsWith(p))) delete internals._cache[key];
  }
}

/**
 * Load one plugin file: `.js`/`.cjs` with Node's `require`; `.ts` transpiled to CommonJS by the
 * `typescript` package when it is installed (a single file: its relative imports must be `.js`).
 */
export function requirePluginFile(file: string): Record<string, unknown> {
  if (!file.endsWith('.ts')) return require(file) as Record<string, unknown>;
  const cachedTs = internals._cache[file] as CompilableModule | undefined;
  if (cachedTs) return cachedTs.exports as Record<string, unknown>;
  const ts = loadTypeScript();
  if (!ts) {
    throw new PluginDefinitionError(`cannot load ${file}: .ts plugins need the 'typescript' package`, {
      hint: 'Install typescript next to brine, or compile the plugin to .js',
    });
  }
  const output = transpileWith(ts, readFileSync(file, 'utf8'), file);
  const mod = new Module(file) as unknown as CompilableModule;
  mod.filename = file;
  mod.paths = internals._nodeModulePaths(dirname(file));
  internals._cache[file] = mod;
  try {
    mod._compile(output, file);
  } catch (err) {
    delete internals._cache[file];
    throw err;
  }
  mod.loaded = true;
  return mod.exports as Record<string, unknown>;
}
