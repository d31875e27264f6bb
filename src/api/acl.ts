/**
 * Salt's eauth permissions (salt/utils/minions.py CkMinions: fill_auth_list, auth_check,
 * spec_check, __fun_check, __args_check; salt/netapi sum/sorted_permissions), as pure functions.
 *
 * An auth list holds, in any mix:
 *   '.*' / 'test.*'               a function regex allowed on every minion
 *   {'web*': ['test.*']}           functions allowed on the minions a compound target matches
 *   {'test.arg': {args: [...], kwargs: {...}}}   a function allowed with these arguments only
 *   '@runner' / '@wheel' / '@jobs' every function of that kind (or of that runner module)
 *   {'@runner': ['jobs.*']}         some functions of that kind
 */
import { exprMatch, pythonReMatch } from '../core/pycompat';
import type { ResolveTarget } from '../core/master/target-preview';

export type AuthList = unknown[];

/** Resolves a target to the minion ids it matches (the master's view: accepted keys and grains). */
export type { ResolveTarget };

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** re.match of a regex against one function or every function of a list (all or nothing); a bad regex matches nothing. */
export function matchCheck(regex: string, fun: string | string[]): boolean {
  const funs = Array.isArray(fun) ? fun : [fun];
  if (funs.length === 0) return false;
  return funs.every((f) => {
    try {
      return pythonReMatch(regex, f);
    } catch {
      return false;
    }
  });
}

/** The auth list entries of a user: those of every matching name, of their groups (`name%`), and `*` for anyone not named. */
export function fillAuthList(eauthConfig: Record<string, unknown>, name: string, groups: readonly string[], permissive = false): AuthList {
  const list: AuthList = [];
  let nameMatched = false;
  for (const [match, perms] of Object.entries(eauthConfig)) {
    if (match.startsWith('^')) continue; // backend settings, not users
    if (match === '*' && !permissive) continue;
    const entries = Array.isArray(perms) ? perms : [];
    if (match.endsWith('%')) {
      if (groups.includes(match.replace(/%+$/, ''))) list.push(...entries);
    } else if (exprMatch(name, match)) {
      nameMatched = true;
      list.push(...entries);
    }
  }
  if (!permissive && !nameMatched && Object.hasOwn(eauthConfig, '*') && Array.isArray(eauthConfig['*']))
    list.push(...(eauthConfig['*'] as unknown[]));
  return list;
}

/** The permissions `POST /login` reports: the user's own, `*`'s, and their groups'. */
export function sumPermissions(eauthConfig: Record<string, unknown>, name: string, groups: readonly string[] = []): AuthList {
  const own = Object.hasOwn(eauthConfig, name) && Array.isArray(eauthConfig[name]) ? [...(eauthConfig[name] as unknown[])] : [];
  if (Object.hasOwn(eauthConfig, '*') && Array.isArray(eauthConfig['*'])) own.push(...(eauthConfig['*'] as unknown[]));
  const eauthGroups = new Set(
    Object.keys(eauthConfig)
      .filter((k) => k.endsWith('%'))
      .map((k) => k.replace(/%+$/, '')),
  );
  for (const g of groups) if (eauthGroups.has(g)) own.push(...((eauthConfig[`${g}%`] as unknown[]) ?? []));
  return own;
}

/** Strings first, sorted and without duplicates; then the rest, in order of their Python repr. */
export function sortedPermissions(perms: AuthList, repr: (v: unknown) => string): AuthList {
  const strs: string[] = [];
  const others: unknown[] = [];
  const seen = new Set<string>();
  for (const p of perms) {
    if (typeof p === 'string') {
      if (!strs.includes(p)) strs.push(p);
    } else {
      const key = repr(p);
      if (!seen.has(key)) {
        seen.add(key);
        others.push(p);
      }
    }
  }
  const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...strs.sort(byCodePoint), ...others.sort((a, b) => byCodePoint(repr(a), repr(b)))];
}

/** __args_check: positional regexes (None = anything) and keyword regexes the call must satisfy. */
function argsCheck(valid: unknown, args: unknown[] | undefined, kwargs: Record<string, unknown> | undefined): boolean {
  const conds = Array.isArray(valid) ? valid : [valid];
  for (const cond of conds) {
    if (!isDict(cond)) continue;
    let good = true;
    const condArgs = Array.isArray(cond.args) ? cond.args : [];
    for (let i = 0; i < condArgs.length && good; i++) {
      if (!args || args.length <= i) good = false;
      else if (condArgs[i] !== null && !matchCheck(String(condArgs[i]), pyStrOf(args[i]))) good = false;
    }
    if (!good) continue;
    const condKwargs = isDict(cond.kwargs) ? cond.kwargs : {};
    for (const [k, v] of Object.entries(condKwargs)) {
      if (!kwargs || !Object.hasOwn(kwargs, k)) {
        good = false;
        break;
      }
      if (v !== null && !matchCheck(String(v), pyStrOf(kwargs[k]))) {
        good = false;
        break;
      }
    }
    if (good) return true;
  }
  return false;
}

/** str() of an argument as Python prints simple values (what the argument regexes are matched against). */
function pyStrOf(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (v === null || v === undefined) return 'None';
  return String(v);
}

/** __fun_check: a function regex, or {regex: argument conditions}. */
function funCheck(valid: unknown, fun: string, args?: unknown[], kwargs?: Record<string, unknown>): boolean {
  const conds = Array.isArray(valid) ? valid : [valid];
  for (const cond of conds) {
    if (typeof cond === 'string') {
      if (matchCheck(cond, fun)) return true;
    } else if (isDict(cond)) {
      const keys = Object.keys(cond);
      if (keys.length !== 1) continue;
      if (matchCheck(keys[0], fun) && argsCheck(cond[keys[0]], args, kwargs)) return true;
    }
  }
  return false;
}

/** Splits Salt's wire args (a trailing {__kwarg__: true} dict holds the keywords). */
function splitArgs(arg: unknown[]): { args: unknown[]; kwargs?: Record<string, unknown> } {
  const last = arg[arg.length - 1];
  if (isDict(last) && Object.hasOwn(last, '__kwarg__')) return { args: arg.slice(0, -1), kwargs: last };
  return { args: arg };
}

/**
 * auth_check: may this auth list run `fun` with `arg` on every minion `tgt` matches?
 * A target-scoped entry applies only when all the targeted minions are inside its own target.
 */
export function authCheck(
  authList: AuthList,
  fun: string,
  arg: unknown[],
  tgt: string | string[],
  tgtType: string,
  resolve: ResolveTarget,
): boolean {
  for (const entry of authList) {
    if (typeof entry === 'string') {
      if (matchCheck(entry, fun)) return true;
    } else if (isDict(entry)) {
      const keys = Object.keys(entry);
      if (keys.length !== 1) continue;
      const allowed = resolve(keys[0], 'compound');
      const targeted = resolve(tgt, tgtType);
      if ([...targeted].every((id) => allowed.has(id))) {
        const { args, kwargs } = splitArgs(arg);
        if (funCheck(entry[keys[0]], fun, args, kwargs)) return true;
      }
    }
  }
  return false;
}

/** spec_check: runner and wheel permissions (`@runner`, `@wheel`, `@jobs`, `@<module>`). */
export function specCheck(
  authList: AuthList,
  fun: string,
  call: { arg?: unknown[]; kwarg?: Record<string, unknown> },
  form: 'runner' | 'wheel',
): boolean | { error: { name: string; message: string } } {
  if (authList.length === 0) return false;
  const comps = fun.split('.');
  if (comps.length !== 2) return { error: { name: 'SaltInvocationError', message: 'A command invocation error occurred: Check syntax.' } };
  const [modName, funName] = comps;
  for (const entry of authList) {
    if (typeof entry === 'string') {
      if (entry.startsWith('@') && (entry.slice(1) === modName || entry.slice(1) === form || entry === `@${form}s`)) return true;
    } else if (isDict(entry)) {
      const keys = Object.keys(entry);
      if (keys.length !== 1 || !keys[0].startsWith('@')) continue;
      const valid = keys[0];
      if (valid.slice(1) === modName && funCheck(entry[valid], funName, call.arg, call.kwarg)) return true;
      if ((valid.slice(1) === form || valid === `@${form}s`) && funCheck(entry[valid], fun, call.arg, call.kwarg)) return true;
    }
  }
  return false;
}
