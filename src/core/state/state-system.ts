/**
 * One minion's state system: top file, compiler and runner behind the functions of Salt's
 * `state` execution module (sls, highstate, single, sls_id, show_*), with Salt's return shapes:
 * a dict of results by tag, or a list of error strings when compiling failed.
 */
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { applyExclude, compileHighData, HighstateCompiler, reconcileExtend, verifyHigh } from './compiler';
import type { SlsRenderer } from './render-sls';
import { applyRequisiteIn } from './requisite-in';
import { StateRunner } from './runner';
import type { SlsSource } from './sls-source';
import type { StateFunctions } from './state-functions';
import { topMatches, type TopContext } from './top';
import { isPlainObject, stateTag, type HighData, type LowChunk, type StateResult } from './types';

export interface StateSystemOptions {
  source: SlsSource;
  renderer: SlsRenderer;
  functions: StateFunctions;
  minionId: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  /** Minion options: failhard, state_top, state_auto_order. */
  failhard: boolean;
  stateTop: string;
  autoOrder: boolean;
  shellCheck: (cmd: string, low: LowChunk) => Promise<number>;
  /** How several saltenvs' top files merge (top_file_merging_strategy, env_order, default_top). */
  top?: Pick<TopContext, 'strategy' | 'envOrder' | 'defaultTop' | 'nodegroups' | 'warn'>;
}

// In a file of their own so that a retcode needs no compiler loaded (plugins/services/states.ts).
export { EX_STATE_COMPILER_ERROR, EX_STATE_FAILURE, stateRetcode, type StateReturn } from './retcode';
import { EX_STATE_COMPILER_ERROR, type StateReturn } from './retcode';

export interface RunOptions {
  saltenv?: string;
  test: boolean;
  exclude?: unknown;
  /** The saltenv the caller named (none: every saltenv's top file counts). */
  topSaltenv?: string | null;
}

export class StateSystem {
  constructor(private readonly opts: StateSystemOptions) {}

  private compiler(): HighstateCompiler {
    const { source, renderer, grains, pillar, autoOrder } = this.opts;
    return new HighstateCompiler({ source, renderer, grains, pillar, autoOrder });
  }

  async showTop(): Promise<Record<string, string[]> | string[]> {
    const { matches, errors } = await this.top();
    return errors.length ? errors : matches;
  }

  private top(saltenv: string | null = null) {
    const { source, renderer, stateTop, minionId, grains, pillar, top } = this.opts;
    return topMatches({ source, renderer, stateTop, minionId, grains, pillar, saltenv, ...top });
  }

  /** High data of `matches` after extend and checks (show_sls / show_highstate). */
  async high(matches: Record<string, string[]>, exclude?: unknown): Promise<HighData | string[]> {
    const { high, errors } = await this.compiler().renderHighstate(matches);
    // Render errors are returned alone: Salt stops before extend and verify_high.
    if (errors.length) return errors;
    if (exclude !== undefined) addExclude(high, exclude);
    errors.push(...reconcileExtend(high));
    errors.push(...verifyHigh(high));
    applyExclude(high);
    return errors.length ? errors : high;
  }

  async showSls(mods: string[], saltenv = 'base'): Promise<HighData | string[]> {
    return this.high({ [saltenv]: mods });
  }

  async showLowSls(mods: string[], saltenv = 'base'): Promise<LowChunk[] | string[]> {
    const high = await this.showSls(mods, saltenv);
    return Array.isArray(high) ? high : compileHighData(high);
  }

  async showHighstate(): Promise<HighData | string[]> {
    const { matches, errors } = await this.top();
    if (errors.length) return errors;
    return this.high(matches);
  }

  async showLowstate(): Promise<LowChunk[] | string[]> {
    const high = await this.showHighstate();
    return Array.isArray(high) ? high : compileHighData(high);
  }

  async sls(mods: string[], run: RunOptions): Promise<StateReturn> {
    const high = await this.high({ [run.saltenv ?? 'base']: mods }, run.exclude);
    if (Array.isArray(high)) return high;
    return this.callHigh(high, run);
  }

  async highstate(run: RunOptions): Promise<StateReturn> {
    const { matches, errors } = await this.top(run.topSaltenv ?? null);
    if (errors.length) return errors;
    if (Object.values(matches).every((l) => l.length === 0)) {
      return {
        'no_|-states_|-states_|-None': {
          result: false,
          comment: 'No Top file or master_tops data matches found. Please see master log for details.',
          name: 'No States',
          changes: {},
          __run_num__: 0,
        },
      };
    }
    const high = await this.high(matches, run.exclude);
    if (Array.isArray(high)) return high;
    return this.callHigh(high, run);
  }

  /**
   * sls_id: the chunks of one ID of the given SLS files, each run with its requisites as Salt's
   * call_chunk(chunk, {}, chunks) runs them (a required state of the SLS runs first); null when
   * no chunk has that ID.
   */
  async slsId(id: string, mods: string[], run: RunOptions): Promise<StateReturn | null> {
    const high = await this.high({ [run.saltenv ?? 'base']: mods });
    if (Array.isArray(high)) return high;
    const chunks = compileHighData(high);
    applyRequisiteIn(chunks);
    const runner = this.runner(run);
    const ret: Record<string, StateResult> = {};
    let found = false;
    for (const chunk of chunks) {
      if (chunk.__id__ !== id) continue;
      found = true;
      Object.assign(ret, await runner.callChunk(chunk, {}, chunks));
    }
    return found ? ret : null;
  }

  /** single: one state function called directly, without an SLS. */
  async single(fun: string, name: string, kwargs: Record<string, unknown>, run: RunOptions): Promise<StateReturn> {
    const dot = fun.indexOf('.');
    if (dot === -1) return [`Invalid function passed`];
    const state = fun.slice(0, dot);
    const low: LowChunk = {
      state,
      name,
      __id__: name,
      __sls__: undefined as unknown as string,
      __env__: run.saltenv ?? 'base',
      ...kwargs,
      fun: fun.slice(dot + 1),
      order: 10000,
    };
    // As Salt's state.single: what verify_data finds is the answer, a list (retcode 1).
    const errors = this.runner(run).verifyData(low);
    if (errors.length > 0) return errors;
    return this.runChunks([low], run);
  }

  private async callHigh(high: HighData, run: RunOptions): Promise<StateReturn> {
    const chunks = compileHighData(high);
    return this.runChunks(chunks, run, true);
  }

  /** Runs chunks; `listen` (call_high: sls, highstate) runs the listeners' mod_watch at the end. */
  private async runChunks(chunks: LowChunk[], run: RunOptions, listen = false): Promise<StateReturn> {
    applyRequisiteIn(chunks);
    const runner = this.runner(run);
    const running = await runner.callChunks(chunks);
    return listen ? runner.callListen(chunks, running) : running;
  }

  private runner(run: RunOptions): StateRunner {
    const { renderer, source, grains, pillar } = this.opts;
    const template = (path: string, name: string, saltenv: string, context: Record<string, unknown>): Promise<string> =>
      renderer.template(path, name, { saltenv, sls: '', grains, pillar, roots: source.roots(saltenv), context });
    const cacheFile = async (url: string, saltenv: string): Promise<string | null> => {
      if (!url.startsWith('salt://')) return isAbsolute(url) && existsSync(url) && statSync(url).isFile() ? url : null;
      const [path, query] = url.slice('salt://'.length).split('?');
      const env = new URLSearchParams(query ?? '').get('saltenv') ?? saltenv;
      return (await source.getFile(env, path))?.path ?? null;
    };
    const listFiles = async (url: string, saltenv: string): Promise<string[]> => {
      const [path, query] = url.replace(/^salt:\/\//, '').split('?');
      const env = new URLSearchParams(query ?? '').get('saltenv') ?? saltenv;
      return source.listFiles(env, path);
    };
    return new StateRunner({
      functions: this.opts.functions,
      test: run.test,
      failhard: this.opts.failhard,
      shellCheck: this.opts.shellCheck,
      template,
      cacheFile,
      listFiles,
      pillar,
    });
  }
}

function addExclude(high: HighData, exclude: unknown): void {
  const list = typeof exclude === 'string' ? exclude.split(',').map((s) => ({ sls: s.trim() })) : Array.isArray(exclude) ? exclude : [];
  (high.__exclude__ as unknown[] | undefined) ?? (high.__exclude__ = []);
  (high.__exclude__ as unknown[]).push(...list);
}

export { stateTag };
