import type { ArgSpec, IModules, ModuleProblem } from '../api/control';
import type { PluginKind } from '../api/metadata';
import type { FnDescriptor } from './descriptors';
import { problemKey, type ModuleRegistry } from './registry';

/**
 * A default's source text as a value, for `sys.argspec`: JSON-like literals (numbers, strings in
 * either quote, true/false/null, `[]`, `{}`) become values; `undefined` becomes null (Python's
 * None); anything else (an expression) is shown as its source text.
 */
export function defaultValueOf(text: string | undefined): unknown {
  if (text === undefined || text === 'undefined' || text === 'null') return null;
  if (/^'(?:[^'\\"]|\\.)*'$/.test(text)) return JSON.parse(`"${text.slice(1, -1).replace(/\\'/g, "'")}"`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Salt's argspec of one function, from its parameter specs. */
export function argspecOf(fn: FnDescriptor): ArgSpec {
  const positional = fn.params.filter((p) => p.kind === 'positional');
  // Salt's defaults are the values of the trailing parameters that have one.
  let firstDefault = positional.length;
  while (firstDefault > 0 && positional[firstDefault - 1].optional) firstDefault--;
  const defaults = positional.slice(firstDefault).map((p) => (p.arg ? (p.arg.default ?? null) : defaultValueOf(p.defaultText)));
  return {
    args: positional.length > 0 ? positional.map((p) => p.name) : null,
    defaults: defaults.length > 0 ? defaults : null,
    varargs: fn.params.some((p) => p.kind === 'rest') ? true : null,
    kwargs: fn.params.some((p) => p.kind === 'kwargs') ? true : null,
  };
}

/**
 * {@link IModules} over one registry: the snapshot a job sees.
 *
 * @example
 * new ModuleCatalog(plugins.registry).argspec('test.echo') // { args: ['text'], defaults: null, varargs: null, kwargs: null }
 */
export class ModuleCatalog implements IModules {
  constructor(private readonly registry: ModuleRegistry) {}

  moduleNames(kind?: PluginKind): string[] {
    return this.registry.moduleNames(kind);
  }
  functionNames(kind?: PluginKind): string[] {
    return this.registry.functionNames(kind);
  }
  doc(fun: string, kind?: PluginKind): string | undefined {
    return this.registry.find(fun, kind)?.fn.doc;
  }
  moduleDoc(module: string, kind?: PluginKind): string | undefined {
    return this.registry.module(module, kind)?.descriptor.doc;
  }
  argspec(fun: string, kind?: PluginKind): ArgSpec | undefined {
    const found = this.registry.find(fun, kind);
    return found ? argspecOf(found.fn) : undefined;
  }
  origin(module: string): string | undefined {
    return this.registry.module(module)?.origin;
  }
  unavailable(): Record<string, string | null> {
    const out: Record<string, string | null> = {};
    for (const [name, reason] of [...this.registry.unavailable()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      out[name] = reason ?? null;
    }
    return out;
  }
  problems(): ModuleProblem[] {
    this.registry.settleAll();
    return this.registry.problems.map((p) => ({ origin: p.origin, module: problemKey(p), message: p.error.message }));
  }
  files(): string[] {
    return [...this.registry.files];
  }
}
