/**
 * Salt's Jinja environment on nunjucks: StrictUndefined, Salt's filters, tests, globals and tags,
 * templates imported from the roots of one saltenv (`./x` relative to the importing template),
 * and `salt['mod.fun'](...)` calling execution functions, asynchronous ones included.
 *
 * nunjucks renders synchronously, so an asynchronous function is handled by passes: the pass
 * stops at the first call whose result is not known yet, the call completes, and the template is
 * rendered again from the start with every known result remembered. A template calling k
 * asynchronous functions renders k+1 times; each call runs once per render (same function and
 * arguments: same result, as with a cached value).
 */
import { readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import nunjucks from 'nunjucks';
import { isMapping, unboxFloats } from '../../pycompat';
import { RenderError, saltRenderErrorText } from '../errors';
import { loadSaltYaml } from '../yaml-loader';
import { saltFilters, saltTests } from './filters';
import { BRINE_MODE, installNunjucksCompat } from './nunjucks-compat';
import { Namespace, TemplateRuntimeError, pyText, splitKeywords } from './python-values';
import { jinjaSyntaxError } from './syntax-errors';
import { SaltTagsExtension } from './tags';
import { Undefined, UndefinedError, missingMember } from './undefined';

/* eslint-disable @typescript-eslint/no-explicit-any */
const nj = nunjucks as any;

/**
 * How templates call execution functions (`salt['mod.fun'](...)`). A function may answer at once
 * or with a promise. Errors are thrown as they are.
 */
export interface SaltCaller {
  call(fun: string, args: unknown[], kwargs: Record<string, unknown>): unknown;
  /** Whether `mod.fun` exists; a missing one is Undefined in the template. */
  has?(fun: string): boolean;
}

/** An error of a called function that Salt reports as "Problem running salt function". */
export function isCallProblem(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'CommandExecutionError' || name === 'InvocationError' || name === 'ArgumentError';
}

/** Thrown inside a pass when a call's result is not known yet. */
class PendingCall extends Error {}

class RootsLoader extends nj.Loader {
  private readonly mtimes = new Map<string, number>();

  constructor(private readonly roots: readonly string[]) {
    super();
  }

  getSource(name: string): { src: string; path: string; noCache: boolean } | null {
    const rel = normalizeName(name);
    if (rel === null) return null;
    for (const root of this.roots) {
      const path = join(root, rel);
      let mtime: number;
      try {
        const st = statSync(path);
        if (!st.isFile()) continue;
        mtime = st.mtimeMs;
      } catch {
        continue;
      }
      this.mtimes.set(name, mtime);
      return { src: readFileSync(path, 'utf8'), path, noCache: false };
    }
    return null;
  }

  isRelative(filename: string): boolean {
    return filename.startsWith('./') || filename.startsWith('../');
  }

  resolve(from: string, to: string): string {
    return posix.normalize(posix.join(posix.dirname(from), to));
  }

  /** Forget compiled templates whose file changed since they were read. */
  refresh(): void {
    const cache = (this as any).cache as Record<string, unknown>;
    for (const [name, mtime] of this.mtimes) {
      const rel = normalizeName(name);
      const now = rel === null ? undefined : this.roots.map((r) => statMtime(join(r, rel))).find((m) => m !== undefined);
      if (now !== mtime) {
        delete cache[name];
        this.mtimes.delete(name);
      }
    }
  }
}

function statMtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** A template name inside the roots, or null if it would leave them. */
function normalizeName(name: string): string | null {
  let n = name.startsWith('salt://') ? name.slice('salt://'.length) : name;
  n = n.split('?')[0];
  const norm = posix.normalize(n.replace(/^\/+/, ''));
  if (norm === '..' || norm.startsWith('../') || norm === '.' || norm === '') return null;
  return norm;
}

interface RenderState {
  memo: Map<string, { ok: true; value: unknown } | { ok: false; error: unknown }>;
  pending: Promise<unknown> | null;
  caller?: SaltCaller;
}

/** The `salt` object of templates: `salt['cmd.run'](...)` and `salt.cmd.run(...)`. */
class SaltFunctions {}

function callKey(fun: string, args: unknown[], kwargs: Record<string, unknown>): string {
  return `${fun}\u0000${JSON.stringify([args, kwargs], (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

function saltFunctions(state: RenderState): SaltFunctions {
  const callFun =
    (fun: string) =>
    (...raw: unknown[]) => {
      // Whole floats are boxed inside templates only (so that they print 1.0): plain numbers outside.
      const split = splitKeywords(raw);
      const args = unboxFloats(split.args) as unknown[];
      const kwargs = unboxFloats(split.kwargs) as Record<string, unknown>;
      // Salt aliases cmd.run to cmd.shell in templates: shell syntax works by default.
      if (fun === 'cmd.run' && !('python_shell' in kwargs)) kwargs.python_shell = true;
      const key = callKey(fun, args, kwargs);
      const known = state.memo.get(key);
      if (known) {
        if (known.ok) return known.value;
        throw known.error;
      }
      if (!state.caller)
        throw new TemplateRuntimeError(`salt['${fun}'] cannot be called here: no execution functions are available to this template`);
      let result: unknown;
      try {
        result = state.caller.call(fun, args, kwargs);
      } catch (error) {
        state.memo.set(key, { ok: false, error });
        throw error;
      }
      if (result instanceof Promise) {
        state.pending = result.then(
          (value) => state.memo.set(key, { ok: true, value }),
          (error) => state.memo.set(key, { ok: false, error }),
        );
        throw new PendingCall();
      }
      state.memo.set(key, { ok: true, value: result });
      return result;
    };
  const exists = (fun: string) => !state.caller?.has || state.caller.has(fun);
  return new Proxy(new SaltFunctions(), {
    get(_t, prop) {
      if (typeof prop !== 'string') return undefined;
      if (prop.includes('.')) return exists(prop) ? callFun(prop) : missingMember({}, prop);
      // salt.cmd.run: a module namespace.
      return new Proxy(new SaltFunctions(), {
        get: (_u, fn) =>
          typeof fn === 'string' ? (exists(`${prop}.${fn}`) ? callFun(`${prop}.${fn}`) : missingMember({}, fn)) : undefined,
      });
    },
  });
}

interface EnvEntry {
  env: any;
  loader: RootsLoader;
}

const environments = new Map<string, EnvEntry>();
const compiled = new Map<string, any>();

function baseGlobals(): Record<string, unknown> {
  return {
    namespace: (...raw: unknown[]) => {
      const { args, kwargs } = splitKeywords(raw);
      const ns = new Namespace();
      for (const a of args) if (isMapping(a)) Object.assign(ns, a);
      return Object.assign(ns, kwargs);
    },
    dict: (...raw: unknown[]) => {
      const { args, kwargs } = splitKeywords(raw);
      const out: Record<string, unknown> = {};
      for (const a of args) {
        if (Array.isArray(a)) for (const [k, v] of a as [string, unknown][]) out[k] = v;
        else if (isMapping(a)) Object.assign(out, a);
      }
      return Object.assign(out, kwargs);
    },
    odict: (...raw: unknown[]) => splitKeywords(raw).kwargs,
    raise: (message: unknown) => {
      throw new TemplateRuntimeError(pyText(message));
    },
    ifelse: (...raw: unknown[]) => {
      const { args } = splitKeywords(raw);
      return args[args.length - 1];
    },
  };
}

function environmentFor(roots: readonly string[]): EnvEntry {
  const key = JSON.stringify(roots);
  let entry = environments.get(key);
  if (entry) return entry;
  installNunjucksCompat();
  const loader = new RootsLoader(roots);
  // dev: keep the error a template raised (nunjucks otherwise replaces it with a bare Error).
  const env = new nj.Environment([loader], { autoescape: false, throwOnUndefined: true, dev: true });
  env.opts.throwOnUndefined = BRINE_MODE;
  env.addExtension('SaltTags', new SaltTagsExtension());
  const runTest = (name: string, value: unknown, args: unknown[]) => Boolean(env.getTest(name).call(null, value, ...args));
  const runFilter = (name: string, value: unknown, args: unknown[]) => env.getFilter(name).call(null, value, ...args);
  for (const [name, fn] of Object.entries(saltFilters(runTest, runFilter))) env.addFilter(name, fn);
  for (const [name, fn] of Object.entries(saltTests())) env.addTest(name, fn);
  env.addTest('filter', (name: unknown) => typeof name === 'string' && name in env.filters);
  env.addTest('test', (name: unknown) => typeof name === 'string' && name in env.tests);
  env.brineBaseGlobals = Object.assign(Object.create(env.globals), baseGlobals());
  entry = { env, loader };
  environments.set(key, entry);
  return entry;
}

/** What a Jinja render needs. */
export interface JinjaOptions {
  text: string;
  /** The template's name inside the roots (`imp/init.sls`): relative imports resolve from it. */
  name: string;
  /** Where imported templates are found (the saltenv's file_roots or pillar_roots). */
  roots: readonly string[];
  /** Template variables (Salt's context: grains, pillar, opts, saltenv, sls, ...). */
  context: Record<string, unknown>;
  caller?: SaltCaller;
}

Object.assign(nj.runtime, {
  brineImportData(env: any, _context: unknown, templateName: string, kind: string, source: unknown, line: number): unknown {
    const tmpl = env.getTemplate(pyText(source), false, templateName || undefined);
    const text: string = tmpl.render({});
    return loadData(kind, text, line);
  },
  brineLoadData: (kind: string, text: unknown, line: number) => loadData(kind, pyText(text), line),
});

function loadData(kind: string, text: string, line: number): unknown {
  if (kind === 'text') return text;
  if (kind === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      throw new TemplateRuntimeError(`Unable to load json from ${text}`, line);
    }
  }
  try {
    return loadSaltYaml(text);
  } catch (err) {
    throw new TemplateRuntimeError(`Encountered error loading yaml: ${(err as Error).message}`, line);
  }
}

function templateFor(entry: EnvEntry, text: string, name: string): any {
  const key = `${JSON.stringify(entry.loader['roots' as keyof RootsLoader])}\u0000${name}\u0000${text}`;
  let tmpl = compiled.get(key);
  if (!tmpl) {
    tmpl = new nj.Template(text, entry.env, name || undefined, true);
    if (compiled.size > 500) compiled.clear();
    compiled.set(key, tmpl);
  }
  return tmpl;
}

/** Unwrap nunjucks' TemplateError to the error a template raised. */
function rootCause(err: unknown): unknown {
  let e = err as { cause?: unknown; name?: string };
  while (e && e.name === 'Template render error' && e.cause) e = e.cause as typeof e;
  return e;
}

function lineOf(err: unknown, fallback: unknown): number | undefined {
  const own = (err as { line?: number }).line;
  if (typeof own === 'number') return own;
  const lineno = (fallback as { lineno?: number }).lineno;
  return typeof lineno === 'number' && lineno > 0 ? lineno : undefined;
}

/** Render Jinja text to text, as Salt's `render_jinja_tmpl` does (trailing newline kept). */
export async function renderJinja(options: JinjaOptions): Promise<string> {
  const entry = environmentFor(options.roots);
  entry.loader.refresh();
  let tmpl: any;
  try {
    tmpl = templateFor(entry, options.text, options.name);
  } catch (err) {
    throw syntaxError(options.text, err);
  }
  const state: RenderState = { memo: new Map(), pending: null, caller: options.caller };
  const globals = Object.assign(Object.create(entry.env.brineBaseGlobals), options.context, { salt: saltFunctions(state) });
  for (;;) {
    state.pending = null;
    let output: string | undefined;
    let failure: unknown;
    // A pass runs synchronously: the environment's globals are this render's for its duration.
    const saved = entry.env.globals;
    entry.env.globals = globals;
    try {
      output = tmpl.render(globals);
    } catch (err) {
      failure = err;
    } finally {
      entry.env.globals = saved;
    }
    if (state.pending) {
      await state.pending;
      continue;
    }
    if (failure !== undefined) throw renderFailure(options.text, failure);
    let out = output ?? '';
    // Jinja drops the template's last newline; Salt puts it back.
    if (options.text.endsWith('\n') && !out.endsWith('\n')) out += '\n';
    return out;
  }
}

function syntaxError(text: string, err: unknown): RenderError {
  const e = err as { message?: string; lineno?: number };
  const raw = String(e.message ?? err).replace(/^\([^)]*\)(?: \[Line \d+(?:, Column \d+)?\])?\n\s*/, '');
  const { message, line } = jinjaSyntaxError(text, raw, e.lineno);
  return new RenderError('JINJA_SYNTAX', saltRenderErrorText(`Jinja syntax error: ${message}`, line, text), { cause: err, line });
}

function renderFailure(text: string, err: unknown): RenderError {
  if (err instanceof RenderError) return err;
  const cause = rootCause(err);
  const line = lineOf(cause, err);
  if (cause instanceof UndefinedError) {
    return new RenderError('JINJA_UNDEFINED', saltRenderErrorText(`Jinja variable ${cause.message}`, line, text), { cause, line });
  }
  if (cause instanceof RenderError) return cause;
  const message = (cause as Error)?.message ?? String(cause);
  if (isCallProblem(cause)) {
    return new RenderError('JINJA_CALL', saltRenderErrorText(`Problem running salt function in Jinja template: ${message}`, line, text), {
      cause,
      line,
    });
  }
  if (cause instanceof TemplateRuntimeError) {
    return new RenderError('JINJA_ERROR', saltRenderErrorText(`Jinja syntax error: ${message}`, line, text), { cause, line });
  }
  const name = (err as { name?: string }).name;
  if (name === 'Template render error' && !(err as { cause?: unknown }).cause) {
    // A parse error found while compiling an imported template, or nunjucks' own runtime error.
    return syntaxError(text, err);
  }
  return new RenderError('JINJA_ERROR', saltRenderErrorText(`Jinja error: ${message}`, line, text), { cause, line });
}

export { Undefined };
