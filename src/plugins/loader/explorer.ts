import { PluginDefinitionError } from '../api/errors';
import type { ArgSchema } from '../api/args';
import { readFns, readInjectionTokens, readModule, type FnContract, type FnDocs, type FnMetadata, type PluginKind } from '../api/metadata';
import { renderDocstring } from './docstring';
import type { FnDescriptor, ModuleDescriptor, ParamSpec, PluginClass } from './descriptors';
import { readParams, type SourceParam } from './params';

/** Which method decorator each kind of module takes. */
const CONTRACT_OF: Record<PluginKind, FnContract> = {
  execution: 'fn',
  runner: 'fn',
  wheel: 'fn',
  returner: 'fn',
  state: 'state',
  renderer: 'render',
  ext_pillar: 'pillar',
};
const DECORATOR_OF: Record<FnContract, string> = { fn: '@Fn', state: '@State', render: '@Render', pillar: '@Pillar' };

/** Params of a function declared with a schema: its arguments, then `*args`, then `**kwargs`. */
function paramsFromSchema(meta: FnMetadata & { args: ArgSchema }): { params: ParamSpec[]; kwargsKeys: string[] | null } {
  const params: ParamSpec[] = Object.entries(meta.args).map(([name, arg]) => ({ name, kind: 'positional', optional: arg.optional, arg }));
  if (meta.varargs) params.push({ name: meta.varargs, kind: 'rest', optional: true });
  if (typeof meta.kwargs === 'string') params.push({ name: meta.kwargs, kind: 'kwargs', optional: true });
  return { params, kwargsKeys: typeof meta.kwargs === 'string' ? null : [] };
}

/**
 * The argument convention of plain-JS functions (no schema), applied to the method's parameters
 * as its source names them:
 * - parameters are filled in order by the job's positional values;
 * - a keyword argument fills the parameter of the same name;
 * - a rest parameter (`...args`) takes the remaining positional values (Python's `*args`);
 * - the options object takes the remaining keyword arguments (Python's `**kwargs`). It is the
 *   parameter named by `@Fn({ kwargs: 'name' })`, the last one with `@Fn({ kwargs: true })`, a
 *   parameter named `kwargs`, or an object destructuring pattern in last position. A pattern
 *   without a `...rest` element accepts only its own keys; any other options object accepts every
 *   keyword and also receives Salt's `__pub_fun`, `__pub_jid`, ... job data;
 * - a parameter with a default may be left out; the others are required.
 */
function toParamSpecs(where: string, meta: FnMetadata, source: SourceParam[]): { params: ParamSpec[]; kwargsKeys: string[] | null } {
  let bagIndex = -1;
  if (typeof meta.kwargs === 'string') {
    bagIndex = source.findIndex((p) => p.name === meta.kwargs);
    if (bagIndex === -1) throw new PluginDefinitionError(`${where}: @Fn kwargs names '${meta.kwargs}', which is not a parameter`);
  } else if (meta.kwargs === true) {
    bagIndex = source.length - 1;
    if (bagIndex === -1 || source[bagIndex].rest) {
      throw new PluginDefinitionError(`${where}: @Fn({ kwargs: true }) needs a last parameter that is not a rest parameter`);
    }
  } else {
    bagIndex = source.findIndex((p) => p.name === 'kwargs' && !p.rest);
    const last = source[source.length - 1];
    if (bagIndex === -1 && last?.objectPattern && !last.rest) bagIndex = source.length - 1;
  }
  const params = source.map((p, i): ParamSpec => {
    const name = p.name ?? (i === bagIndex ? 'kwargs' : `arg${i}`);
    if (i === bagIndex) return { name, kind: 'kwargs', optional: true };
    const spec: ParamSpec = { name, kind: p.rest ? 'rest' : 'positional', optional: p.hasDefault || p.rest };
    if (p.defaultText !== undefined) spec.defaultText = p.defaultText;
    return spec;
  });
  const bag = bagIndex === -1 ? undefined : source[bagIndex];
  const kwargsKeys = bag?.objectPattern && !bag.objectPattern.rest ? bag.objectPattern.keys : bag ? null : [];
  return { params, kwargsKeys };
}

/**
 * Turns a `@Module` class into a {@link ModuleDescriptor} without instantiating it (NestJS's
 * metadata explorer): the module name and doc, its `@Fn` methods with their parameters, and the
 * services its constructor asks for. Throws `PluginDefinitionError` naming what is wrong.
 *
 * @example
 * const d = exploreModule(TestModule);
 * d.name;                          // 'test'
 * d.functions.get('echo')?.params; // [{ name: 'text', kind: 'positional', optional: false }]
 */
export function exploreModule(cls: unknown): ModuleDescriptor {
  const meta = readModule(cls);
  if (!meta) {
    const what = typeof cls === 'function' ? `class ${cls.name || '(anonymous)'}` : typeof cls;
    throw new PluginDefinitionError(
      `${what} is not marked with @Module(name) (or @StateModule, @Runner, @Wheel, @Returner, @Renderer, @ExtPillar)`,
    );
  }
  const klass = cls as PluginClass;
  const functions = new Map<string, FnDescriptor>();
  const contract = CONTRACT_OF[meta.kind];
  for (const fnMeta of readFns(klass)) {
    const where = `${meta.name}.${fnMeta.name ?? fnMeta.method} (${klass.name}.${fnMeta.method})`;
    const method = (klass.prototype as Record<string, unknown>)[fnMeta.method];
    if (typeof method !== 'function') throw new PluginDefinitionError(`${where}: @Fn marks something that is not a method`);
    const marked = fnMeta.contract ?? 'fn';
    if (marked !== contract) {
      throw new PluginDefinitionError(
        `${where}: ${DECORATOR_OF[marked]} marks a method of a ${meta.kind} module, which takes ${DECORATOR_OF[contract]}`,
      );
    }
    const name = marked === 'render' ? 'render' : marked === 'pillar' ? 'ext_pillar' : (fnMeta.name ?? fnMeta.method);
    if (name.startsWith('_')) continue; // Salt's rule: leading underscore = private helper
    if (functions.has(name)) {
      const what = marked === 'render' || marked === 'pillar' ? `two ${DECORATOR_OF[marked]} methods` : `two functions are named '${name}'`;
      throw new PluginDefinitionError(`${where}: ${what}`);
    }
    const docs: FnDocs = { summary: fnMeta.summary, description: fnMeta.description, examples: fnMeta.examples };
    const doc = renderDocstring(docs);
    if (fnMeta.args) {
      const { params, kwargsKeys } = paramsFromSchema({ ...fnMeta, args: fnMeta.args });
      functions.set(name, {
        name,
        method: fnMeta.method,
        doc,
        docs,
        params,
        kwargsKeys,
        call: 'object',
        contract: marked,
        outputter: fnMeta.outputter,
      });
      continue;
    }
    if (marked === 'render') {
      functions.set(name, { name, method: fnMeta.method, doc, docs, params: [], kwargsKeys: [], call: 'positional', contract: marked });
      continue;
    }
    let source: SourceParam[];
    try {
      source = readParams(method as (...a: never[]) => unknown);
    } catch (err) {
      throw new PluginDefinitionError(`${where}: cannot read its parameters; declare them with @Fn({ args: { ... } })`, { cause: err });
    }
    const { params, kwargsKeys } = toParamSpecs(where, fnMeta, source);
    functions.set(name, {
      name,
      method: fnMeta.method,
      doc,
      docs,
      params,
      kwargsKeys,
      call: 'positional',
      contract: marked,
      outputter: fnMeta.outputter,
    });
  }
  if ((contract === 'render' || contract === 'pillar') && functions.size === 0) {
    throw new PluginDefinitionError(`${meta.kind} '${meta.name}' (class ${klass.name}) has no ${DECORATOR_OF[contract]} method`);
  }
  const injections = readInjectionTokens(klass);
  for (let i = 0; i < klass.length; i++) {
    if (!injections.some((t) => t.index === i)) {
      throw new PluginDefinitionError(`Module '${meta.name}' (class ${klass.name}): constructor parameter #${i + 1} names no service`, {
        hint: 'Mark every constructor parameter with @inject(IShell), @inject(IGrains), ...',
      });
    }
  }
  return {
    kind: meta.kind,
    name: meta.name,
    doc: meta.doc ?? '',
    available: meta.available,
    ...(meta.file === undefined ? {} : { file: meta.file }),
    cls: klass,
    functions,
    injections,
  };
}
