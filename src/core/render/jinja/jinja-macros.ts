/**
 * Jinja's macro extras nunjucks lacks: `varargs` (the positional arguments beyond the declared
 * ones, a tuple) and `kwargs` (the keyword arguments not declared, a dict), available in a macro
 * whose body names them, as Jinja makes them. `caller` and `{% call %}` are nunjucks' own.
 */
import nunjucks from 'nunjucks';
import { pyTuple } from '../../pycompat';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;

/** Placed first in a macro body that uses varargs or kwargs: binds both from the call. */
const BrineMacroExtras = nodes.Node.extend('BrineMacroExtras', { fields: ['declared'] });

const VARARGS = '__brineVarargs';

/** Whether `node` names `varargs` or `kwargs` outside nested macros. */
function usesExtras(node: AnyNode): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(usesExtras);
  if (!(node instanceof nodes.Node) || (node instanceof nodes.Macro && !(node instanceof nodes.Caller))) return false;
  if (node instanceof nodes.Symbol && (node.value === 'varargs' || node.value === 'kwargs')) return true;
  return (node.fields as string[]).some((f) => usesExtras(node[f]));
}

let installed = false;

/** Install the parser, compiler and runtime additions (once per process). */
export function installJinjaMacros(isBrine: (compiler: AnyNode) => boolean): void {
  if (installed) return;
  installed = true;

  const parseMacro = Parser.prototype.parseMacro;
  Parser.prototype.parseMacro = function (this: AnyNode, ...args: unknown[]) {
    const node = parseMacro.apply(this, args);
    if (usesExtras(node.body)) {
      const declared = node.args.children.flatMap((a: AnyNode) =>
        a instanceof nodes.Dict ? a.children.map((p: AnyNode) => p.key.value) : [a.value],
      );
      node.body.children.unshift(new BrineMacroExtras(node.lineno, node.colno, declared));
    }
    return node;
  };

  Compiler.prototype.compileBrineMacroExtras = function (this: AnyNode, node: AnyNode) {
    if (!isBrine(this)) return;
    // `kwargs` here is the macro function's own parameter (nunjucks' compiled macro).
    this._emitLine(`frame.set("varargs", runtime.brineVarargs(kwargs));`);
    this._emitLine(`frame.set("kwargs", runtime.brineKwargs(kwargs, ${JSON.stringify(node.declared)}));`);
  };

  const makeMacro = runtime.makeMacro;
  runtime.makeMacro = function (argNames: string[], kwargNames: string[], func: (...a: unknown[]) => unknown) {
    const macro = makeMacro(argNames, kwargNames, func);
    const declared = argNames.length + kwargNames.length;
    return function (this: unknown, ...macroArgs: unknown[]) {
      const last = macroArgs[macroArgs.length - 1] as Record<string, unknown> | undefined;
      const hasKw = last !== null && typeof last === 'object' && Object.prototype.hasOwnProperty.call(last, '__keywords');
      const positional = hasKw ? macroArgs.slice(0, -1) : macroArgs;
      if (positional.length <= declared) return macro.apply(this, macroArgs);
      const kw = runtime.makeKeywordArgs({ ...(hasKw ? last : {}) });
      Object.defineProperty(kw, VARARGS, { value: pyTuple(positional.slice(declared)) });
      return macro.apply(this, [...positional.slice(0, declared), kw]);
    };
  };

  Object.assign(runtime, {
    brineVarargs: (kwargs: Record<string, unknown>) => (kwargs[VARARGS] as unknown[] | undefined) ?? pyTuple([]),
    brineKwargs(kwargs: Record<string, unknown>, declared: string[]): Record<string, unknown> {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(kwargs)) if (k !== '__keywords' && k !== 'caller' && !declared.includes(k)) out[k] = v;
      return out;
    },
  });
}
