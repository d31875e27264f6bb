/**
 * The state compiler: SLS files to high data (render_state: includes, extend, shorthand IDs,
 * auto order), high data checks (verify_high), and low chunks (compile_high_data, order_chunks),
 * following salt/state.py so errors, orders and key orders come out as Salt's.
 */
import { fnmatch, markOrdered } from '../pycompat';
import type { SlsRenderer, SlsRenderContext } from './render-sls';
import { SlsRenderError } from './render-sls';
import type { SlsSource } from './sls-source';
import { isPlainObject, REQUISITE_KEYWORDS, type HighBody, type HighData, type LowChunk } from './types';

export interface CompileContext {
  source: SlsSource;
  renderer: SlsRenderer;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  /** Salt's state_auto_order (default true). */
  autoOrder?: boolean;
}

/** Renders SLS files into one high data structure, as Salt's BaseHighState does. */
export class HighstateCompiler {
  private iorder = 10000;
  private readonly mods = new Set<string>();
  private readonly avail = new Map<string, string[]>();

  constructor(private readonly ctx: CompileContext) {}

  /** render_highstate: `matches` maps saltenv to SLS names (globs allowed). */
  async renderHighstate(matches: Record<string, string[]>): Promise<{ high: HighData; errors: string[] }> {
    // Salt's building_highstate is an OrderedDict: outputters keep the IDs in render order.
    const high: HighData = markOrdered({});
    const allErrors: string[] = [];
    for (const [saltenv, states] of Object.entries(matches)) {
      const avail = await this.available(saltenv);
      for (const slsMatch of states) {
        const targets = avail.filter((s) => fnmatch(slsMatch, s));
        for (const sls of targets.length ? targets : [slsMatch]) {
          if (this.mods.has(`${saltenv}:${sls}`)) continue;
          const { state, errors } = await this.renderState(sls, saltenv, matches);
          if (state) mergeIncluded(high, state, errors);
          const thisSls = `SLS ${slsMatch} in saltenv`;
          for (let i = 0; i < errors.length; i++) {
            if (errors[i].includes('is not available') && errors[i].includes(thisSls)) {
              errors[i] = `No matching sls found for '${slsMatch}' in env '${saltenv}'`;
            }
          }
          allErrors.push(...errors);
        }
      }
    }
    return { high, errors: allErrors };
  }

  private async available(saltenv: string): Promise<string[]> {
    let list = this.avail.get(saltenv);
    if (!list) {
      list = await this.ctx.source.listSls(saltenv);
      this.avail.set(saltenv, list);
    }
    return list;
  }

  /** render_state: one SLS with its includes; included states come after its own keys. */
  async renderState(
    sls: string,
    saltenv: string,
    matches: Record<string, string[]>,
  ): Promise<{ state: Record<string, unknown> | null; errors: string[] }> {
    const errors: string[] = [];
    const file = await this.ctx.source.getSls(saltenv, sls);
    let state: unknown = null;
    if (!file) {
      errors.push(`Specified SLS ${sls} in saltenv ${saltenv} is not available on the salt master or through a configured fileserver`);
    } else {
      const rctx: SlsRenderContext = {
        saltenv,
        sls,
        grains: this.ctx.grains,
        pillar: this.ctx.pillar,
        roots: this.ctx.source.roots(saltenv),
      };
      try {
        state = await this.ctx.renderer.render(file, rctx);
      } catch (err) {
        if (err instanceof SlsRenderError) errors.push(`Rendering SLS '${saltenv}:${sls}' failed: ${err.message}`);
        else errors.push(`Rendering SLS ${sls} failed, render error: ${(err as Error).message}`);
      }
    }
    this.mods.add(`${saltenv}:${sls}`);
    if (state === null || state === undefined || state === '' || (isPlainObject(state) && Object.keys(state).length === 0)) {
      return { state: {}, errors };
    }
    if (!isPlainObject(state)) {
      errors.push(`SLS ${sls} does not render to a dictionary`);
      return { state: {}, errors };
    }
    let include: unknown[] = [];
    if ('include' in state) {
      if (!Array.isArray(state.include)) errors.push(`Include Declaration in SLS ${sls} is not formed as a list`);
      else include = state.include;
      delete state.include;
    }
    handleExtend(state, sls, saltenv, errors);
    handleExclude(state, sls, errors);
    handleStateDecls(state, sls, saltenv, errors);
    for (let inc of include) {
      let envKey = saltenv;
      if (isPlainObject(inc)) {
        const [k, v] = Object.entries(inc)[0] ?? [];
        envKey = String(k);
        inc = v;
      }
      let incSls = String(inc);
      const envs = await this.ctx.source.envs();
      if (!envs.includes(envKey)) {
        errors.push(`Nonexistent saltenv '${envKey}' found in include of '${incSls}' within SLS '${saltenv}:${sls}'`);
        continue;
      }
      if (incSls.startsWith('.')) {
        const m = /^(\.+)(.*)$/.exec(incSls)!;
        const levels = m[1].length;
        const parts = sls.split('.');
        if (file?.source.endsWith('/init.sls')) parts.push('init');
        if (levels > parts.length) {
          errors.push(`Attempted relative include of '${incSls}' within SLS '${saltenv}:${sls}' goes beyond top level package`);
          continue;
        }
        incSls = [...parts.slice(0, parts.length - levels), m[2]].join('.');
      }
      const avail = await this.available(envKey);
      const targets = avail.filter((s) => fnmatch(incSls, s));
      for (const target of targets.length ? targets : [incSls]) {
        if (this.mods.has(`${envKey}:${target}`)) continue;
        const { state: nstate, errors: nerr } = await this.renderState(target, envKey, matches);
        if (nstate && Object.keys(nstate).length > 0) {
          for (const [id, body] of Object.entries(nstate)) {
            if (id.startsWith('__') || !isPlainObject(body)) continue;
            const from = Array.isArray(body.__sls_included_from__) ? body.__sls_included_from__ : [];
            if (!from.includes(sls)) body.__sls_included_from__ = [...from, sls];
          }
          mergeIncluded(state, nstate, errors);
        }
        errors.push(...nerr);
      }
    }
    if (this.ctx.autoOrder !== false) this.handleIorder(state);
    return { state, errors };
  }

  /** _handle_iorder: functions without an `order` get the next automatic number. */
  private handleIorder(state: Record<string, unknown>): void {
    for (const body of Object.values(state)) {
      if (!isPlainObject(body)) continue;
      for (const [dec, args] of Object.entries(body)) {
        if (dec.startsWith('_') || !Array.isArray(args)) continue;
        const found = args.some((a) => isPlainObject(a) && Object.keys(a)[0] === 'order');
        if (!found) args.push({ order: this.iorder++ });
      }
    }
  }
}

function handleExtend(state: Record<string, unknown>, sls: string, saltenv: string, errors: string[]): void {
  if (!('extend' in state)) return;
  const ext = state.extend;
  delete state.extend;
  if (!isPlainObject(ext)) {
    errors.push(`Extension value in SLS '${sls}' is not a dictionary`);
    return;
  }
  for (const [name, body] of Object.entries(ext)) {
    if (!isPlainObject(body)) {
      errors.push(`Extension name '${name}' in SLS '${sls}' is not a dictionary`);
      continue;
    }
    if (!('__sls__' in body)) body.__sls__ = sls;
    if (!('__env__' in body)) body.__env__ = saltenv;
    for (const key of Object.keys(body)) {
      if (key.startsWith('_') || !Array.isArray(body[key])) continue;
      if (key.includes('.')) {
        const [mod, fun] = key.split('.');
        const args = body[key] as unknown[];
        delete body[key];
        body[mod] = [...args, fun];
      }
    }
  }
  ((state.__extend__ as unknown[]) ??= []).push(ext);
}

function handleExclude(state: Record<string, unknown>, sls: string, errors: string[]): void {
  if (!('exclude' in state)) return;
  const exc = state.exclude;
  delete state.exclude;
  if (!Array.isArray(exc)) {
    errors.push(`Exclude Declaration in SLS ${sls} is not formed as a list`);
    return;
  }
  ((state.__exclude__ as unknown[]) ??= []).push(...exc);
}

/** _handle_state_decls: shorthand IDs, `mod.fun` keys split, `__sls__`/`__env__` added. */
function handleStateDecls(state: Record<string, unknown>, sls: string, saltenv: string, errors: string[]): void {
  for (const name of Object.keys(state)) {
    if (name === '__extend__' || name === '__exclude__') continue;
    const body = state[name];
    if (!isPlainObject(body)) {
      if (typeof body === 'string' && body.includes('.')) {
        const [mod, fun] = body.split('.');
        state[name] = { __sls__: sls, __env__: saltenv, [mod]: [fun] };
        continue;
      }
      errors.push(`ID ${name} in SLS ${sls} is not a dictionary`);
      continue;
    }
    const skeys = new Set<string>();
    for (const key of Object.keys(body)) {
      if (key.startsWith('_')) continue;
      if (!Array.isArray(body[key])) continue;
      if (key.includes('.')) {
        const [mod, fun] = key.split('.');
        if (skeys.has(mod)) {
          errors.push(`ID '${name}' in SLS '${sls}' contains multiple state declarations of the same type`);
          continue;
        }
        const args = body[key] as unknown[];
        // Replace the key in place so the module keeps the declaration's position.
        renameKey(body, key, mod, [...args, fun]);
        skeys.add(mod);
        continue;
      }
      skeys.add(key);
    }
    if (!('__sls__' in body)) body.__sls__ = sls;
    if (!('__env__' in body)) body.__env__ = saltenv;
  }
}

function renameKey(obj: Record<string, unknown>, from: string, to: string, value: unknown): void {
  const entries = Object.entries(obj);
  for (const k of Object.keys(obj)) delete obj[k];
  for (const [k, v] of entries) {
    if (k === from) obj[to] = value;
    else if (k !== to) obj[k] = v;
  }
}

/** merge_included_states: `__extend__`/`__exclude__` gathered, conflicting IDs reported. */
export function mergeIncluded(high: Record<string, unknown>, state: Record<string, unknown>, errors: string[]): void {
  if ('__extend__' in state) {
    ((high.__extend__ as unknown[]) ??= []).push(...(state.__extend__ as unknown[]));
    delete state.__extend__;
  }
  if ('__exclude__' in state) {
    ((high.__exclude__ as unknown[]) ??= []).push(...(state.__exclude__ as unknown[]));
    delete state.__exclude__;
  }
  for (const [id, body] of Object.entries(state)) {
    if (id in high && JSON.stringify(high[id]) !== JSON.stringify(body)) {
      const a = high[id] as HighBody;
      const b = body as HighBody;
      errors.push(
        `Detected conflicting IDs, SLS IDs need to be globally unique.\n    The conflicting ID is '${id}' and is found in SLS '${String(a.__env__)}:${String(a.__sls__)}' and SLS '${String(b.__env__)}:${String(b.__sls__)}'`,
      );
    }
  }
  Object.assign(high, state);
}

/** reconcile_extend: apply `extend:` blocks to the IDs they name. */
export function reconcileExtend(high: HighData): string[] {
  const errors: string[] = [];
  const extends_ = (high.__extend__ as Record<string, HighBody>[] | undefined) ?? [];
  delete high.__extend__;
  for (const ext of extends_) {
    for (const [name, body] of Object.entries(ext)) {
      const target = high[name];
      if (!isPlainObject(target)) {
        errors.push(
          `Cannot extend ID '${name}' in '${String(body.__env__)}:${String(body.__sls__)}'. It is not part of the high state.\nThis is likely due to a missing include statement or an incorrectly typed ID.\nEnsure that a state with an ID of '${name}' is available\nin environment '${String(body.__env__)}' and to SLS '${String(body.__sls__)}'`,
        );
        continue;
      }
      for (const [state, run] of Object.entries(body)) {
        if (state.startsWith('__')) continue;
        if (!Array.isArray(target[state])) {
          target[state] = run;
          continue;
        }
        const list = target[state] as unknown[];
        for (const arg of run as unknown[]) {
          let update = false;
          for (let i = 0; i < list.length; i++) {
            const val = list[i];
            if (typeof arg === 'string' && typeof val === 'string') {
              list[i] = arg;
              update = true;
              continue;
            }
            if (isPlainObject(arg) && isPlainObject(val)) {
              const first = Object.keys(arg)[0];
              const vfirst = Object.keys(val)[0];
              if (first === vfirst) {
                if (REQUISITE_KEYWORDS.has(first) && Array.isArray(val[first]))
                  (val[first] as unknown[]).push(...((arg[first] as unknown[]) ?? []));
                else list[i] = arg;
                update = true;
              }
              if (first === 'name' && vfirst === 'names') list[i] = arg;
            }
          }
          if (!update) list.push(arg);
        }
      }
    }
  }
  return errors;
}

/** apply_exclude: `exclude: [{sls: x}, {id: y}]` removes states. */
export function applyExclude(high: HighData): void {
  const exclude = (high.__exclude__ as unknown[] | undefined) ?? [];
  delete high.__exclude__;
  const slsGlobs: string[] = [];
  const ids = new Set<string>();
  for (const e of exclude) {
    if (typeof e === 'string') slsGlobs.push(e);
    else if (isPlainObject(e)) {
      if ('sls' in e) slsGlobs.push(String(e.sls));
      if ('id' in e) ids.add(String(e.id));
    }
  }
  for (const [id, body] of Object.entries(high)) {
    if (!isPlainObject(body)) continue;
    if (ids.has(id) || slsGlobs.some((g) => fnmatch(g, String(body.__sls__)))) delete high[id];
  }
}

/** verify_high: structural errors, as Salt words them. */
export function verifyHigh(high: HighData): string[] {
  const errors: string[] = [];
  const reqs = new Map<string, Map<string, string>>();
  for (const [name, body] of Object.entries(high)) {
    if (name.startsWith('__')) continue;
    if (!isPlainObject(body)) {
      errors.push(`The type ${name} in ${String(body)} is not formatted as a dictionary`);
      continue;
    }
    for (const [state, run] of Object.entries(body)) {
      if (state.startsWith('__')) continue;
      if (run === null) {
        errors.push(
          `ID '${name}' in SLS '${String(body.__sls__)}' contains a short declaration (${state}) with a trailing colon. When not passing any arguments to a state, the colon must be omitted.`,
        );
        continue;
      }
      if (!Array.isArray(run)) {
        errors.push(`State '${name}' in SLS '${String(body.__sls__)}' is not formed as a list`);
        continue;
      }
      let fun = state.includes('.') ? 1 : 0;
      for (const arg of run) {
        if (typeof arg === 'string') {
          fun++;
          if (arg.trim().includes(' ')) {
            errors.push(
              `The function "${arg}" in state "${name}" in SLS "${String(body.__sls__)}" has whitespace, a function with whitespace is not supported, perhaps this is an argument that is missing a ":"`,
            );
          }
        } else if (isPlainObject(arg)) {
          const first = Object.keys(arg)[0];
          if (first === 'require' || first === 'watch' || first === 'prereq' || first === 'onchanges') {
            const list = arg[first];
            if (!Array.isArray(list)) {
              errors.push(`The ${first} statement in state '${name}' in SLS '${String(body.__sls__)}' needs to be formed as a list`);
              continue;
            }
            const mine = new Map<string, string>([['state', state]]);
            reqs.set(name, mine);
            for (let req of list) {
              if (typeof req === 'string') req = { id: req };
              if (!isPlainObject(req)) {
                errors.push(`Requisite declaration ${String(req)} in SLS ${String(body.__sls__)} is not formed as a single key dictionary`);
                continue;
              }
              const reqKey = Object.keys(req)[0];
              const reqVal = req[reqKey];
              if (reqKey.includes('.')) {
                errors.push(
                  `Invalid requisite type '${reqKey}' in state '${name}', in SLS '${String(body.__sls__)}'. Requisite types must not contain dots, did you mean '${reqKey.split('.')[0]}'?`,
                );
              }
              if (isPlainObject(reqVal) || Array.isArray(reqVal)) {
                errors.push(`Illegal requisite "${JSON.stringify(reqVal)}", please check your syntax.\n`);
                continue;
              }
              const val = String(reqVal);
              mine.set(val, reqKey);
              const other = reqs.get(val);
              if (other?.has(name) && other.get(name) === state && other.get('state') === mine.get(val)) {
                errors.push(`A recursive requisite was found, SLS "${String(body.__sls__)}" ID "${name}" ID "${val}"`);
              }
            }
            if (Object.keys(arg).length !== 1)
              errors.push(`Multiple dictionaries defined in argument of state '${name}' in SLS '${String(body.__sls__)}'`);
          }
        }
      }
      if (!fun) {
        if (state === 'require' || state === 'watch') continue;
        errors.push(`No function declared in state '${name}' in SLS '${String(body.__sls__)}'`);
      } else if (fun > 1) {
        errors.push(
          `Too many functions declared in state '${name}' in SLS '${String(body.__sls__)}'. Please choose one of the following: ${run.filter((a) => typeof a === 'string').join(', ')}`,
        );
      }
    }
  }
  return errors;
}

/** compile_high_data + order_chunks: one low chunk per function (and per name of `names`). */
export function compileHighData(high: HighData): LowChunk[] {
  const chunks: Record<string, unknown>[] = [];
  for (const [name, body] of Object.entries(high)) {
    if (name.startsWith('__') || !isPlainObject(body)) continue;
    for (const [state, run] of Object.entries(body)) {
      if (state.startsWith('__') || !Array.isArray(run)) continue;
      const funcs: string[] = [];
      const names: unknown[] = [];
      const chunk: Record<string, unknown> = { state, name };
      if ('__sls__' in body) chunk.__sls__ = body.__sls__;
      if ('__env__' in body) chunk.__env__ = body.__env__;
      if ('__sls_included_from__' in body) chunk.__sls_included_from__ = body.__sls_included_from__;
      chunk.__id__ = name;
      for (const arg of run) {
        if (typeof arg === 'string') {
          if (!funcs.includes(arg)) funcs.push(arg);
          continue;
        }
        if (!isPlainObject(arg)) continue;
        for (const [key, val] of Object.entries(arg)) {
          if (key === 'names') {
            for (const n of Array.isArray(val) ? val : [val])
              if (!names.some((x) => JSON.stringify(x) === JSON.stringify(n))) names.push(n);
          } else if (key === 'state') {
            continue;
          } else if (key === 'name' && typeof val !== 'string') {
            chunk[key] = name;
          } else {
            chunk[key] = val;
          }
        }
      }
      if (names.length) {
        let nameOrder = 1;
        for (const entry of names) {
          const live = structuredClone(chunk);
          if (isPlainObject(entry)) {
            const lowName = Object.keys(entry)[0];
            live.name = lowName;
            for (const upd of (entry[lowName] as unknown[]) ?? []) if (isPlainObject(upd)) Object.assign(live, upd);
          } else {
            live.name = entry;
          }
          live.name_order = nameOrder++;
          for (const fun of funcs) chunks.push({ ...structuredClone(live), fun });
        }
      } else {
        for (const fun of funcs) chunks.push({ ...structuredClone(chunk), fun });
      }
    }
  }
  return orderChunks(chunks as LowChunk[]);
}

function orderChunks(chunks: LowChunk[]): LowChunk[] {
  let cap = 1;
  for (const c of chunks) {
    if (typeof c.order === 'number' && Number.isInteger(c.order) && c.order > cap - 1 && c.order > 0) cap = c.order + 100;
  }
  for (const c of chunks as Record<string, unknown>[] as LowChunk[]) {
    if (!('order' in (c as object))) {
      (c as LowChunk).order = cap;
      continue;
    }
    const o = c.order as unknown;
    if (typeof o !== 'number') {
      if (o === 'last') c.order = cap + 1000000;
      else if (o === 'first') c.order = 0;
      else c.order = cap;
    }
    if ('name_order' in c) {
      c.order = c.order + (c.name_order as number) / 10000.0;
      delete c.name_order;
    }
    if (c.order < 0) c.order = cap + 1000000 + c.order;
  }
  const key = (c: LowChunk): string => `${c.state}${String(c.name)}${c.fun}`;
  return chunks
    .map((c, i) => ({ c, i }))
    .sort((a, b) => a.c.order - b.c.order || (key(a.c) < key(b.c) ? -1 : key(a.c) > key(b.c) ? 1 : 0) || a.i - b.i)
    .map((x) => x.c);
}
