/**
 * Salt's pillar compiler (salt/pillar/__init__.py `Pillar.compile_pillar`) for one minion: the
 * top files of the pillar_roots environments, matched with the minion's id and grains; the
 * matching SLS files rendered (with their `include:`s) and merged in order; the ext_pillar
 * sources; the override. Render problems do not stop it: they end up in `_errors`, each logged.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fnmatch, isDict } from '../pycompat';
import { matchTarget, type Nodegroups, type TargetType } from '../targeting';
import { renderFile, type RendererRegistry, type SaltCaller } from '../render';
import { ExtPillarRegistry } from './ext-pillar';
import { mergePillar } from './merge';

type Dict = Record<string, unknown>;

/** The logger the compiler reports to (the master's, or salt-call's). */
export interface PillarLog {
  critical(msg: string): void;
  error(msg: string): void;
  warning(msg: string): void;
  debug(msg: string): void;
}

export interface CompilePillarOptions {
  minionId: string;
  grains: Dict;
  /** The options in force (master's, or the minion's with file_client local). */
  opts: Dict;
  /** The saltenv the minion asked for (with pillar_source_merging_strategy none). */
  saltenv?: string | null;
  /** Compile only this pillar environment. Default: opts.pillarenv. */
  pillarenv?: string | null;
  /** Command-line `pillar=` data, merged last. */
  pillarOverride?: Dict;
  /** `salt[...]` in pillar templates. */
  caller?: SaltCaller;
  extPillars?: ExtPillarRegistry;
  renderers?: RendererRegistry;
  log?: PillarLog;
}

/** Every environment's top targets with their `match:` lines and SLS names, and the render errors. */
export interface PillarTop {
  top: Record<string, Record<string, unknown[]>>;
  errors: string[];
}

const quiet: PillarLog = { critical() {}, error() {}, warning() {}, debug() {} };

/** The pillar environments in order: base first, then pillar_roots' others (Salt's `_get_envs`). */
function envs(roots: Record<string, string[]>): string[] {
  return ['base', ...Object.keys(roots).filter((e) => e !== 'base')];
}

class PillarCompiler {
  private readonly roots: Record<string, string[]>;
  private readonly errors: string[] = [];
  private readonly log: PillarLog;
  private readonly strategy: string;
  private readonly mergeLists: boolean;
  private readonly avail = new Map<string, string[]>();
  private readonly ignored = new Map<string, Set<string>>();

  constructor(private readonly o: CompilePillarOptions) {
    this.roots = (isDict(o.opts.pillar_roots) ? o.opts.pillar_roots : {}) as Record<string, string[]>;
    this.log = o.log ?? quiet;
    this.strategy = String(o.opts.pillar_source_merging_strategy ?? 'smart');
    this.mergeLists = o.opts.pillar_merge_lists === true;
  }

  private merge(a: Dict, b: Dict): Dict {
    return mergePillar(a, b, this.strategy, this.mergeLists);
  }

  private context(saltenv: string, pillar: Dict): Dict {
    return { grains: this.o.grains, pillar, opts: this.o.opts, saltenv, pillarenv: this.o.pillarenv ?? this.o.opts.pillarenv ?? null };
  }

  /** The file of an SLS name in an environment: `a.b` is a/b.sls or a/b/init.sls. */
  private slsFile(sls: string, saltenv: string): string | undefined {
    const rel = sls.replace(/\./g, '/');
    for (const root of this.roots[saltenv] ?? []) {
      for (const candidate of [join(root, `${rel}.sls`), join(root, rel, 'init.sls')]) {
        if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
      }
    }
    return undefined;
  }

  /** Every SLS name of an environment (for globs in top files and includes). */
  private available(saltenv: string): string[] {
    let names = this.avail.get(saltenv);
    if (names) return names;
    const found = new Set<string>();
    const walk = (dir: string, prefix: string[]) => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (e.isDirectory()) walk(join(dir, e.name), [...prefix, e.name]);
        else if (e.name.endsWith('.sls')) {
          const base = e.name.slice(0, -4);
          found.add((base === 'init' ? prefix : [...prefix, base]).join('.'));
        }
      }
    };
    for (const root of this.roots[saltenv] ?? []) walk(root, []);
    names = [...found].filter((n) => n !== '').sort();
    this.avail.set(saltenv, names);
    return names;
  }

  private async renderTop(path: string, name: string, saltenv: string): Promise<Dict> {
    try {
      const data = await renderFile({
        path,
        name,
        sls: '',
        saltenv,
        roots: this.roots[saltenv],
        context: this.context(saltenv, this.o.pillarOverride ?? {}),
        caller: this.o.caller,
        defaultPipe: String(this.o.opts.renderer ?? 'jinja|yaml'),
        renderers: this.o.renderers,
      });
      return isDict(data) ? data : {};
    } catch (err) {
      const which = name === this.stateTop() ? 'Primary Top file' : `Top file ${name}`;
      this.errors.push(`Rendering ${which} failed, render error:\n${(err as Error).message}`);
      return {};
    }
  }

  private stateTop(): string {
    return String(this.o.opts.state_top ?? 'top.sls');
  }

  /** The top files of each environment, with those their `include:` names (Salt's `get_tops`). */
  private async topFiles(): Promise<Dict[]> {
    const pillarenv = this.o.pillarenv ?? (this.o.opts.pillarenv as string | null | undefined) ?? null;
    const order = pillarenv ? (pillarenv in this.roots ? [pillarenv] : []) : envs(this.roots);
    const files: Dict[] = [];
    for (const saltenv of order) {
      if (!pillarenv && this.strategy === 'none' && saltenv !== (this.o.saltenv || 'base')) continue;
      const path = (this.roots[saltenv] ?? []).map((r) => join(r, this.stateTop())).find((p) => existsSync(p));
      if (!path) continue;
      const tops = [await this.renderTop(path, this.stateTop(), saltenv)];
      const done = new Set<string>();
      for (let i = 0; i < tops.length; i++) {
        const include = tops[i].include;
        delete tops[i].include;
        if (!Array.isArray(include)) continue;
        for (const sls of include.map(String)) {
          if (done.has(sls)) continue;
          done.add(sls);
          const file = this.slsFile(sls, saltenv);
          if (file) tops.push(await this.renderTop(file, sls, saltenv));
          // Salt renders a missing included top file as nothing (compile_template logs it).
          else this.log.error(`Template does not exist: top file ${sls} included in environment '${saltenv}'`);
        }
      }
      files.push(...tops);
    }
    return files;
  }

  /** The top data of every environment, merged and sorted by `order:` (Salt's `merge_tops`). */
  private async tops(): Promise<Map<string, Map<string, unknown[]>>> {
    const top = new Map<string, Map<string, unknown[]>>();
    const orders = new Map<string, Map<string, number>>();
    for (const data of await this.topFiles()) {
      for (const [env, targets] of Object.entries(data)) {
        if (env === 'include' || !isDict(targets)) continue;
        if (!top.has(env)) top.set(env, new Map());
        if (!orders.has(env)) orders.set(env, new Map());
        for (const [tgt, comps] of Object.entries(targets)) {
          const list = Array.isArray(comps) ? comps : [comps];
          const matches = list.filter((c) => isDict(c) && 'match' in c);
          const states = [...new Set(list.filter((c): c is string => typeof c === 'string'))];
          let order = 0;
          for (const c of list) if (isDict(c) && 'order' in c) order = Number.isInteger(Number(c.order)) ? Number(c.order) : 0;
          orders.get(env)!.set(tgt, order);
          if (list.some((c) => isDict(c) && c.ignore_missing === true)) {
            const ignored = this.ignored.get(env) ?? new Set<string>();
            for (const s of states) ignored.add(s);
            this.ignored.set(env, ignored);
          }
          top.get(env)!.set(tgt, [...matches, ...states]);
        }
      }
    }
    // A stable sort on each target's `order:` (0 when absent), as Salt's sort_top_targets.
    for (const [env, targets] of top) {
      const order = orders.get(env)!;
      top.set(env, new Map([...targets].sort((a, b) => order.get(a[0])! - order.get(b[0])!)));
    }
    return top;
  }

  /** Salt's `confirm_top`: compound matching unless a `match:` line says otherwise. */
  private confirm(tgt: string, data: unknown[]): boolean {
    let matcher = 'compound';
    for (const item of data) if (isDict(item) && typeof item.match === 'string') matcher = item.match;
    const nodegroups = (this.o.opts.nodegroups ?? {}) as Nodegroups;
    return matchTarget(
      { tgt, tgtType: matcher as TargetType },
      { id: this.o.minionId, grains: this.o.grains, pillar: this.o.pillarOverride ?? {} },
      { nodegroups },
    );
  }

  private matches(top: Map<string, Map<string, unknown[]>>): Map<string, string[]> {
    const pillarenv = this.o.pillarenv ?? (this.o.opts.pillarenv as string | null | undefined) ?? null;
    const out = new Map<string, string[]>();
    for (const [saltenv, body] of top) {
      if (pillarenv && saltenv !== pillarenv) continue;
      for (const [tgt, data] of body) {
        if (!this.confirm(tgt, data)) continue;
        if (!out.has(saltenv)) out.set(saltenv, []);
        const list = out.get(saltenv)!;
        for (const item of data) if (typeof item === 'string' && !list.includes(item)) list.push(item);
      }
    }
    return out;
  }

  /** Render one pillar SLS and its includes (Salt's `render_pstate`). */
  private async renderPstate(sls: string, saltenv: string, mods: Map<string, Dict | null>, defaults: Dict = {}): Promise<Dict | null> {
    const path = this.slsFile(sls, saltenv);
    if (!path) {
      if (this.ignored.get(saltenv)?.has(sls)) return null;
      if ((this.roots[saltenv] ?? []).length > 0) {
        const msg = `Specified SLS '${sls}' in environment '${saltenv}' is not available on the salt master`;
        this.log.error(msg);
        this.errors.push(msg);
      }
      return null;
    }
    let state: unknown = null;
    try {
      state = await renderFile({
        path,
        sls,
        saltenv,
        roots: this.roots[saltenv],
        context: { ...this.context(saltenv, this.o.pillarOverride ?? {}), ...defaults },
        caller: this.o.caller,
        defaultPipe: String(this.o.opts.renderer ?? 'jinja|yaml'),
        renderers: this.o.renderers,
      });
    } catch (err) {
      const msg = `Rendering SLS '${sls}' failed, render error:\n${(err as Error).message}`;
      this.log.critical(msg);
      this.errors.push(
        this.o.opts.pillar_safe_render_error === false ? msg : `Rendering SLS '${sls}' failed. Please see master log for details.`,
      );
    }
    mods.set(sls, isDict(state) ? state : null);
    if (state === null || state === undefined || (isDict(state) && Object.keys(state).length === 0)) return isDict(state) ? state : null;
    if (!isDict(state)) {
      const msg = `SLS '${sls}' does not render to a dictionary`;
      this.log.error(msg);
      this.errors.push(msg);
      return null;
    }
    if (!('include' in state)) return state;
    if (!Array.isArray(state.include)) {
      const msg = `Include Declaration in SLS '${sls}' is not formed as a list`;
      this.log.error(msg);
      this.errors.push(msg);
      return state;
    }
    const includes = state.include as unknown[];
    delete state.include;
    const included: Dict[] = [];
    let own: Dict = state;
    const overrideSls = this.o.opts.pillar_includes_override_sls === true;
    for (const raw of includes) {
      let sub = raw;
      let key: string | undefined;
      let subDefaults: Dict = {};
      if (isDict(raw)) {
        const [name, v] = Object.entries(raw)[0] ?? [];
        sub = name;
        if (isDict(v)) {
          subDefaults = isDict(v.defaults) ? v.defaults : {};
          key = typeof v.key === 'string' ? v.key : undefined;
        }
      }
      if (typeof sub !== 'string') continue;
      let name = sub;
      if (name.startsWith('.')) {
        const parts = path.endsWith('/init.sls') ? sls.split('.') : sls.split('.').slice(0, -1);
        name = [...parts, name.slice(1)].join('.');
      }
      let targets = this.available(saltenv).filter((n) => fnmatch(n, name));
      if (targets.length === 0) targets = [name];
      for (const t of targets) {
        let nstate = mods.has(t) ? mods.get(t)! : await this.renderPstate(t, saltenv, mods, subDefaults);
        if (!nstate) continue;
        if (key) for (const fragment of key.split(':').reverse()) nstate = { [fragment]: nstate };
        if (overrideSls) own = this.merge(own, nstate);
        else included.push(nstate);
      }
    }
    if (overrideSls) return own;
    let merged: Dict | null = null;
    for (const s of [...included, own]) merged = merged === null ? s : this.merge(merged, s);
    return merged;
  }

  private async renderPillar(matches: Map<string, string[]>, start: Dict): Promise<Dict> {
    let pillar = start;
    for (const [saltenv, pstates] of matches) {
      const files: string[] = [];
      for (const m of pstates) {
        const found = this.available(saltenv).filter((n) => fnmatch(n, m));
        if (found.length > 0) files.push(...found);
        else files.push(m);
      }
      const mods = new Map<string, Dict | null>();
      for (const sls of files) {
        const pstate = await this.renderPstate(sls, saltenv, mods);
        if (pstate !== null) pillar = this.merge(pillar, pstate);
      }
    }
    return pillar;
  }

  private async extPillar(pillar: Dict): Promise<Dict> {
    const registry = this.o.extPillars ?? new ExtPillarRegistry();
    const list = this.o.opts.ext_pillar;
    if (list === null || list === undefined) return pillar;
    if (!Array.isArray(list)) {
      this.log.critical("The 'ext_pillar' option is malformed: it must be a list of {name: arguments}");
      return pillar;
    }
    for (const run of list) {
      if (!isDict(run)) {
        this.log.critical("The 'ext_pillar' option is malformed: it must be a list of {name: arguments}");
        continue;
      }
      for (const [name, args] of Object.entries(run)) {
        const source = registry.get(name);
        if (!source) {
          this.log.critical(`Specified ext_pillar interface ${name} is unavailable`);
          continue;
        }
        try {
          const data = await source.pillar(args, {
            minionId: this.o.minionId,
            grains: this.o.grains,
            pillar,
            opts: this.o.opts,
            log: this.log,
          });
          if (isDict(data)) pillar = this.merge(pillar, structuredClone(data));
        } catch (err) {
          const msg = `Failed to load ext_pillar ${name}: ${(err as Error).message}`;
          this.log.error(msg);
          this.errors.push(msg);
        }
      }
    }
    return pillar;
  }

  /** The merged top data and the top files' render errors (Salt's `get_top`), unmatched. */
  async topData(): Promise<PillarTop> {
    const top: PillarTop['top'] = {};
    for (const [env, targets] of await this.tops()) top[env] = Object.fromEntries(targets);
    return { top, errors: [...this.errors] };
  }

  async compile(): Promise<Dict> {
    const top = await this.tops();
    const override = this.o.pillarOverride ?? {};
    let pillar: Dict;
    if (this.o.opts.ext_pillar_first === true) {
      const ext = await this.extPillar(structuredClone(override));
      pillar = this.merge(ext, await this.renderPillar(this.matches(top), {}));
    } else {
      pillar = await this.renderPillar(this.matches(top), structuredClone(override));
      pillar = await this.extPillar(pillar);
    }
    if (this.o.opts.pillar_opts === true) pillar.master = { ...this.o.opts };
    if (this.errors.length > 0) {
      for (const e of this.errors) this.log.critical(`Pillar render error: ${e}`);
      pillar._errors = [...this.errors];
    }
    if (Object.keys(override).length > 0) pillar = this.merge(pillar, structuredClone(override));
    return pillar;
  }
}

/**
 * A minion's pillar, as Salt's master compiles it for a `_pillar` request (and salt-call --local
 * for itself). Never throws for a broken pillar file: see `_errors`.
 *
 * @example
 * const pillar = await compilePillar({ minionId: 'web1', grains, opts: masterOpts, log });
 */
export function compilePillar(options: CompilePillarOptions): Promise<Dict> {
  return new PillarCompiler(options).compile();
}

/**
 * The pillar top data of every environment, merged as a compile would see it but not matched
 * against the minion (Salt's `Pillar.get_top`, what `pillar.show_top` shows); the grains are
 * those the top files render with.
 *
 * @example
 * const { top, errors } = await pillarTop({ minionId: 'web1', grains, opts: masterOpts });
 * // top: { base: { '*': ['common'], 'web*': ['web'] } }
 */
export function pillarTop(options: CompilePillarOptions): Promise<PillarTop> {
  return new PillarCompiler(options).topData();
}
