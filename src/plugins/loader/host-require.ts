import { spawnSync } from 'node:child_process';
import Module from 'node:module';
import { readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { PluginDefinitionError } from '../api/errors';

/**
 * Loading external plugins. A module_dirs file (or a module synced from the master) is a lone
 * file with no node_modules of its own, so its `require('brine/plugin')` is answered with the
 * host's API by the `require` it is compiled with; nothing else in the process changes. An npm
 * plugin package resolves `brine/plugin` as Node does (brine is its peer dependency: installed
 * beside it, or its own copy); service ids and metadata keys come from the global symbol
 * registry, so the host reads what either copy recorded.
 */
interface ModuleInternals {
  _cache: Record<string, unknown>;
  _nodeModulePaths(dir: string): string[];
}
interface CompilableModule {
  filename: string;
  paths: string[];
  loaded: boolean;
  exports: unknown;
  require(id: string): unknown;
  _compile(source: string, filename: string): void;
}

const internals = Module as unknown as ModuleInternals;
let hostApi: object | undefined;

/** The API a lone plugin file gets for `require('brine/plugin')`. */
export function setHostApi(api: object): void {
  hostApi = api;
}

/** Where the `typescript` package is, or undefined when it is not installed. */
function findTypeScript(): string | undefined {
  try {
    return require.resolve('typescript');
  } catch {
    return undefined;
  }
}

// Run by a child node: reads {source, fileName} on stdin, writes the CommonJS text on stdout.
const TRANSPILE = `
const ts = require(process.argv[1]);
const { source, fileName } = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
process.stdout.write(ts.transpileModule(source, { fileName, compilerOptions: {
  module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, experimentalDecorators: true, esModuleInterop: true,
} }).outputText);
`;

/**
 * The CommonJS text of a TypeScript source, compiled by a child node process: the compiler is
 * about 45 MiB once loaded, and a process never gives that memory back, so the minion does not
 * load it itself ("no TypeScript compiler held after use").
 */
function transpileWith(typescript: string, source: string, fileName: string): string {
  const res = spawnSync(process.execPath, ['-e', TRANSPILE, typescript], {
    input: JSON.stringify({ source, fileName }),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.status !== 0) {
    throw new PluginDefinitionError(`cannot compile ${fileName}: the TypeScript compiler failed`, {
      cause: res.error ?? new Error(res.stderr),
      hint: 'Check that the typescript package installed next to brine works (npx tsc --version)',
    });
  }
  return res.stdout;
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
  const ts = findTypeScript();
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

function compileLoneFile(file: string, source: string): Record<string, unknown> {
  const mod = new Module(file) as unknown as CompilableModule;
  mod.filename = file;
  mod.paths = internals._nodeModulePaths(dirname(file));
  const ownRequire = mod.require.bind(mod);
  mod.require = (id: string) => (id === 'brine/plugin' && hostApi ? hostApi : ownRequire(id));
  internals._cache[file] = mod;
  try {
    mod._compile(source, file);
  } catch (err) {
    delete internals._cache[file];
    throw err;
  }
  mod.loaded = true;
  return mod.exports as Record<string, unknown>;
}

/**
 * Load one plugin file. A lone file (`lone`: module_dirs, synced modules) is compiled with a
 * `require` that answers `brine/plugin` with the host's API; `.ts` is transpiled to CommonJS by
 * the `typescript` package when it is installed (a single file: its relative imports must be
 * `.js`). A package's entry file is loaded with Node's `require`.
 */
export function requirePluginFile(file: string, lone = true): Record<string, unknown> {
  const cached = internals._cache[file] as CompilableModule | undefined;
  if (cached) return cached.exports as Record<string, unknown>;
  if (!lone && !file.endsWith('.ts')) {
    try {
      return require(file) as Record<string, unknown>;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes("'brine/plugin'")) {
        throw new PluginDefinitionError(`${file} cannot find brine/plugin`, {
          cause: err,
          hint: 'brine is a peer dependency of plugin packages: install brine beside the plugin (npm install brine)',
        });
      }
      throw err;
    }
  }
  if (!file.endsWith('.ts')) return compileLoneFile(file, readFileSync(file, 'utf8'));
  const ts = findTypeScript();
  if (!ts) {
    throw new PluginDefinitionError(`cannot load ${file}: .ts plugins need the 'typescript' package`, {
      hint: 'Install typescript next to brine, or compile the plugin to .js',
    });
  }
  return compileLoneFile(file, transpileWith(ts, readFileSync(file, 'utf8'), file));
}
