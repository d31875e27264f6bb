/**
 * The state runner: runs low chunks in order, resolving requisites as salt/state.py's
 * call_chunks / call_chunk / check_requisite do (require, watch + mod_watch, onchanges, onfail,
 * prereq, their _any forms), with `__run_num__` numbering (gaps included), failhard, and the
 * result dicts of states that did not run, in Salt's key order.
 */
import { fnmatch } from '../pycompat';
import { runCheck } from './run-check';
import type { StateFunctions } from './state-functions';
import { REQUISITES, REQUISITE_KEYWORDS, isPlainObject, stateTag, type LowChunk, type StateResult } from './types';
import { localTime } from '../pycompat/local-time';

export interface RunnerOptions {
  functions: StateFunctions;
  test: boolean;
  /** Minion option `failhard`. */
  failhard: boolean;
  /** Shell used for `unless`/`onlyif`. */
  shellCheck: (cmd: string, low: LowChunk) => Promise<number>;
  template: (path: string, name: string, saltenv: string, context: Record<string, unknown>) => Promise<string>;
  cacheFile: (source: string, saltenv: string) => Promise<string | null>;
  listFiles: (source: string, saltenv: string) => Promise<string[]>;
  pillar: Readonly<Record<string, unknown>>;
}

type Status = 'met' | 'unmet' | 'fail' | 'change' | 'pre' | 'onfail' | 'onchanges';
type Reqs = Record<string, LowChunk[]>;

/**
 * The requisites the runner checks before a chunk runs: all but `listen` (its mod_watch runs after
 * every chunk, callListen) and `use` (arguments copied before the run, requisite-in.ts).
 */
const REQ_TYPES: readonly string[] = REQUISITES.filter((r) => r !== 'listen' && r !== 'use');

/** Salt's STATE_REQUISITE_KEYWORDS: dropped from a listener's mod_watch chunk. */
const LISTENER_DROPS = [
  'onchanges',
  'onchanges_any',
  'onfail',
  'onfail_any',
  'onfail_all',
  'onfail_stop',
  'prereq',
  'prerequired',
  'watch',
  'watch_any',
  'require',
  'require_any',
  'listen',
];

/** Salt's _l_tag: the pseudo-state of a listen naming a state that does not exist. */
function listenErrorTag(state: string, id: string): string {
  return `Listen_Error_|-listen_${id}_|-listen_${state}_|-Listen_Error`;
}

/** HH:MM:SS.ffffff of local time, as Python's time().isoformat(). */
function isoTime(ms: number, micros: number): string {
  const t = localTime(new Date(ms));
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const us = (t.milliseconds * 1000 + micros) % 1000000;
  const base = `${p(t.hours)}:${p(t.minutes)}:${p(t.seconds)}`;
  return us === 0 ? base : `${base}.${p(us, 6)}`;
}

class Clock {
  private readonly originMs = Date.now();
  private readonly originHr = process.hrtime.bigint();
  /** Now, in microseconds since the epoch. */
  nowUs(): number {
    return this.originMs * 1000 + Number((process.hrtime.bigint() - this.originHr) / 1000n);
  }
  startTime(us: number): string {
    return isoTime(Math.floor(us / 1000), us % 1000);
  }
}

export class StateRunner {
  private runNum = 0;
  private readonly active = new Set<string>();
  private readonly pre: Record<string, StateResult> = {};
  private readonly clock = new Clock();

  constructor(private readonly opts: RunnerOptions) {}

  /** call_chunks: every chunk in order; returns results by tag, in the order they finished. */
  async callChunks(chunks: LowChunk[]): Promise<Record<string, StateResult>> {
    let running: Record<string, StateResult> = {};
    for (const low of chunks) {
      if ('__FAILHARD__' in running) {
        delete running.__FAILHARD__;
        return running;
      }
      const tag = stateTag(low);
      if (!(tag in running)) {
        running = await this.callChunk(low, running, chunks);
        if (this.checkFailhard(low, running)) return running;
      }
      this.active.clear();
    }
    delete running.__FAILHARD__;
    return running;
  }

  /**
   * call_listen: after every chunk ran, each state that `listen`s to (or is named by a
   * `listen_in` of) a state with changes gets its `mod_watch` run, as ID `listener_<ID>`; a
   * listen naming no state is a failed `Listen_Error` pseudo-state.
   */
  async callListen(chunks: LowChunk[], running: Record<string, StateResult>): Promise<Record<string, StateResult>> {
    type Ref = [string, string, string];
    const crefs = new Map<string, { ref: Ref; chunk: LowChunk }>();
    const listeners: { key: Ref; to: unknown[] }[] = [];
    for (const chunk of chunks) {
      const ref: Ref = [chunk.state, chunk.__id__, chunk.name];
      crefs.set(JSON.stringify(ref), { ref, chunk });
      if (Array.isArray(chunk.listen)) listeners.push({ key: ref, to: chunk.listen });
      if (Array.isArray(chunk.listen_in)) {
        for (const lin of chunk.listen_in) {
          if (!isPlainObject(lin)) continue;
          for (const [k, v] of Object.entries(lin))
            listeners.push({ key: [k, String(v), 'lookup'], to: [{ [chunk.state]: chunk.__id__ }] });
        }
      }
    }
    // Salt matches a reference against every field of (state, ID, name): `lval in cref`.
    const matches = (state: string, val: string): LowChunk[] =>
      [...crefs.values()].filter(({ ref }) => ref[0] === state && ref.includes(val)).map(({ chunk }) => chunk);
    const errors: Record<string, StateResult> = {};
    const error = (state: string, val: string): void => {
      errors[listenErrorTag(state, val)] = {
        comment: `Referenced state ${state}: ${val} does not exist`,
        name: `listen_${state}:${val}`,
        result: false,
        changes: {},
      };
    };
    const watchers: LowChunk[] = [];
    for (const { key, to } of listeners) {
      for (let listenTo of to) {
        if (!isPlainObject(listenTo)) {
          const found = chunks.find((c) => c.__id__ === listenTo || c.name === listenTo);
          if (!found) continue;
          listenTo = { [found.state]: found.__id__ };
        }
        for (const [lkey, rawVal] of Object.entries(listenTo as Record<string, unknown>)) {
          const lval = String(rawVal);
          const targets = matches(lkey, lval);
          if (targets.length === 0) {
            error(lkey, lval);
            continue;
          }
          for (const target of targets) {
            const ret = running[stateTag(target)];
            if (!ret || Object.keys(ret.changes ?? {}).length === 0) continue;
            const listening = matches(key[0], key[1]);
            if (listening.length === 0) {
              error(key[0], key[1]);
              continue;
            }
            for (const chunk of listening) {
              const low = { ...chunk, sfun: chunk.fun, fun: 'mod_watch', __id__: `listener_${chunk.__id__}` } as LowChunk;
              for (const req of LISTENER_DROPS) delete low[req];
              watchers.push(low);
            }
          }
        }
      }
    }
    Object.assign(running, await this.callChunks(watchers));
    for (const ret of Object.values(errors)) ret.__run_num__ = this.runNum++;
    return Object.assign(running, errors);
  }

  private checkFailhard(low: LowChunk, running: Record<string, StateResult>): boolean {
    if (this.opts.test) return false;
    const tag = stateTag(low);
    const failhard = low.failhard ?? this.opts.failhard;
    if (failhard && tag in running) {
      if (running[tag].result === null) return false;
      return !running[tag].result;
    }
    return false;
  }

  private fake(low: LowChunk, comment: string, result: boolean, extra: Record<string, unknown> = {}): StateResult {
    const start = this.clock.nowUs();
    const ret: StateResult = {
      changes: {},
      result,
      duration: 0,
      start_time: this.clock.startTime(start),
      comment,
      ...extra,
      __run_num__: this.runNum,
    } as StateResult;
    ret.duration = Math.max(0.001, (this.clock.nowUs() - start) / 1000);
    ret.__sls__ = low.__sls__;
    ret.__id__ = low.__id__;
    ret.name = low.name;
    this.runNum++;
    return ret;
  }

  /** Chunks a requisite entry points at (`{mod: glob}`, `{sls: glob}`, `{id: glob}`). */
  private matching(req: Record<string, unknown>, chunks: LowChunk[]): LowChunk[] {
    const [key, raw] = Object.entries(req)[0] ?? [];
    if (raw === null || raw === undefined || key === undefined) return [];
    const val = String(raw);
    if (key === 'sls') return chunks.filter((c) => fnmatch(val, String(c.__sls__)));
    return chunks.filter((c) => (fnmatch(val, String(c.name)) || fnmatch(val, c.__id__)) && (key === 'id' || c.state === key));
  }

  /** call_chunk: one chunk after its requisites (run first from `chunks` when not in `running`); `running` with its results added. */
  async callChunk(low: LowChunk, running: Record<string, StateResult>, chunks: LowChunk[]): Promise<Record<string, StateResult>> {
    const tag = stateTag(low);
    if (!low.prerequired) this.active.add(tag);
    const requisites = [...REQ_TYPES];
    let check: { status: Status; reqs: Reqs };
    if (!low.__prereq__) {
      requisites.push('prerequired');
      check = this.checkRequisite(low, running, chunks, true);
    } else {
      check = this.checkRequisite(low, running, chunks, false);
    }
    const { status, reqs } = check;
    if (status === 'unmet') {
      const lost: Record<string, Record<string, unknown>[]> = {};
      const toRun: LowChunk[] = [];
      for (const requisite of requisites) {
        lost[requisite] = [];
        const list = low[requisite];
        if (!Array.isArray(list)) continue;
        for (let req of list) {
          if (typeof req === 'string') req = { id: req };
          if (!isPlainObject(req)) continue;
          const found = this.matching(req, chunks);
          for (const chunk of found) {
            if (requisite === 'prereq') chunk.__prereq__ = true;
            else if (requisite === 'prerequired') chunk.__prerequired__ = true;
            toRun.push(chunk);
          }
          if (found.length === 0) lost[requisite].push(req);
        }
      }
      if (Object.values(lost).some((l) => l.length > 0)) {
        let comment = 'The following requisites were not found:\n';
        for (const [requisite, lreqs] of Object.entries(lost)) {
          if (!lreqs.length) continue;
          comment += `${' '.repeat(19)}${requisite}:\n`;
          for (const lreq of lreqs) {
            const [k, v] = Object.entries(lreq)[0];
            comment += `${' '.repeat(23)}${k}: ${String(v)}\n`;
          }
        }
        const ret = this.fake(low, comment, false);
        if (low.__prereq__) this.pre[tag] = ret;
        else running[tag] = ret;
        return running;
      }
      for (const chunk of toRun) {
        const ctag = stateTag(chunk);
        if (ctag in running) continue;
        if (this.active.has(ctag)) {
          if (chunk.__prerequired__) {
            if (!(tag in this.pre)) {
              low.__prereq__ = true;
              this.pre[ctag] = await this.call(low, chunks, running);
            }
            return running;
          }
          running[tag] = {
            changes: {},
            result: false,
            comment: 'Recursive requisite found',
            __run_num__: this.runNum,
            __sls__: low.__sls__,
          } as StateResult;
          this.runNum++;
          return running;
        }
        running = await this.callChunk(chunk, running, chunks);
        if (this.checkFailhard(chunk, running)) {
          running.__FAILHARD__ = { result: false, changes: {} } as StateResult;
          return running;
        }
      }
      if (low.__prereq__) {
        const again = this.checkRequisite(low, running, chunks, false);
        const ret = await this.call(low, chunks, running);
        this.pre[tag] = ret;
        if (Object.keys(ret.changes ?? {}).length === 0 && again.status === 'change') {
          ret.changes = { watch: 'watch' };
          ret.result = null;
        }
      } else {
        running = await this.callChunk(low, running, chunks);
      }
      return running;
    }
    if (status === 'met') {
      if (low.__prereq__) this.pre[tag] = await this.call(low, chunks, running);
      else running[tag] = await this.call(low, chunks, running);
    } else if (status === 'fail') {
      if (tag in this.pre) {
        running[tag] = this.pre[tag];
        running[tag].__run_num__ = this.runNum;
        running[tag].__sls__ = low.__sls__;
      } else {
        const failed: string[] = [];
        for (const reqLows of Object.values(reqs)) {
          for (const reqLow of reqLows) {
            const rtag = stateTag(reqLow);
            const rret = this.pre[rtag] ?? running[rtag];
            if (!rret) continue;
            if (rret.result === false) {
              const key = `${reqLow.__sls__}.${reqLow.__id__}`;
              if (!failed.includes(key)) failed.push(key);
            }
          }
        }
        const start = this.clock.nowUs();
        const ret = {
          changes: {},
          result: false,
          duration: 0,
          start_time: this.clock.startTime(start),
          comment: `One or more requisite failed: ${failed.join(', ')}`,
          __run_num__: this.runNum,
        } as StateResult;
        ret.duration = Math.max(0.001, (this.clock.nowUs() - start) / 1000);
        ret.__sls__ = low.__sls__;
        ret.__id__ = low.__id__;
        ret.name = low.name;
        running[tag] = ret;
      }
      this.pre[tag] = running[tag];
      this.runNum++;
    } else if (status === 'change' && !low.__prereq__) {
      let ret = await this.call(low, chunks, running);
      if (Object.keys(ret.changes ?? {}).length === 0 && !ret.skip_watch) {
        const watchLow = { ...low, sfun: low.fun, fun: 'mod_watch', __reqs__: reqs } as LowChunk;
        ret = await this.call(watchLow, chunks, running);
      }
      running[tag] = ret;
    } else if (status === 'pre') {
      const ret = this.fake(low, 'No changes detected', true);
      running[tag] = ret;
      this.pre[tag] = ret;
    } else if (status === 'onfail') {
      running[tag] = this.fake(low, 'State was not run because onfail req did not change', true, { __state_ran__: false });
    } else if (status === 'onchanges') {
      running[tag] = this.fake(low, 'State was not run because none of the onchanges reqs changed', true, { __state_ran__: false });
    } else if (low.__prereq__) {
      this.pre[tag] = await this.call(low, chunks, running);
    } else {
      running[tag] = await this.call(low, chunks, running);
    }
    return running;
  }

  private checkRequisite(
    low: LowChunk,
    running: Record<string, StateResult>,
    chunks: LowChunk[],
    pre: boolean,
  ): { status: Status; reqs: Reqs } {
    const hasModWatch = this.opts.functions.find(`${low.state}.mod_watch`) !== undefined;
    for (const w of ['watch', 'watch_any']) {
      if (w in low && !hasModWatch) {
        const target = w === 'watch' ? 'require' : 'require_any';
        low[target] = [...((low[target] as unknown[]) ?? []), ...((low[w] as unknown[]) ?? [])];
        delete low[w];
      }
    }
    const present = [...REQ_TYPES, 'prerequired'].some((r) => r in low);
    const reqs: Reqs = {};
    if (!present) return { status: 'met', reqs };
    for (const r of REQ_TYPES) reqs[r] = [];
    if (pre) reqs.prerequired = [];
    for (const rState of Object.keys(reqs)) {
      const list = low[rState];
      if (!Array.isArray(list)) continue;
      for (let req of list) {
        if (typeof req === 'string') req = { id: req };
        if (!isPlainObject(req)) continue;
        const found = this.matching(req, chunks);
        if (found.length === 0) return { status: 'unmet', reqs: {} };
        reqs[rState].push(...found);
      }
    }
    const funStats = new Set<string>();
    for (const [rState, reqChunks] of Object.entries(reqs)) {
      const stats = new Set<string>();
      const isPrereq = rState.startsWith('prereq') && !rState.startsWith('prerequired');
      const runDict = isPrereq ? this.pre : running;
      for (const chunk of reqChunks) {
        const t = stateTag(chunk);
        const r = runDict[t];
        if (!r) {
          stats.add('unmet');
          continue;
        }
        if (rState.startsWith('onfail')) {
          if (r.result === true) {
            stats.add('onfail');
            continue;
          }
        } else if (r.result === false) {
          stats.add('fail');
          continue;
        }
        if (rState.startsWith('onchanges')) {
          stats.add(Object.keys(r.changes ?? {}).length ? 'onchangesmet' : 'onchanges');
          continue;
        }
        if (rState.startsWith('watch') && Object.keys(r.changes ?? {}).length) {
          stats.add('change');
          continue;
        }
        if (rState.startsWith('prereq') && r.result === null) {
          if (!rState.startsWith('prerequired')) stats.add('premet');
        }
        if (rState.startsWith('prereq') && r.result !== null) {
          if (!rState.startsWith('prerequired')) stats.add('pre');
        } else if (r.__state_ran__ !== false) {
          stats.add('met');
        }
      }
      if (rState.endsWith('_any') || rState === 'onfail') {
        if ((stats.has('met') || stats.has('change')) && stats.has('fail')) stats.delete('fail');
        if (stats.has('onchangesmet')) {
          stats.delete('onchanges');
          stats.delete('fail');
        }
        if (stats.has('onfail') && stats.has('met')) stats.delete('onfail');
      }
      if (rState.endsWith('_all') && stats.has('onfail') && stats.has('met')) stats.delete('met');
      for (const s of stats) funStats.add(s);
    }
    let status: Status;
    if (funStats.has('unmet')) status = 'unmet';
    else if (funStats.has('fail')) status = 'fail';
    else if (funStats.has('pre')) status = funStats.has('premet') ? 'met' : 'pre';
    else if (funStats.has('onfail') && !funStats.has('onchangesmet')) status = 'onfail';
    else if (funStats.has('onchanges') && !funStats.has('onchangesmet')) status = 'onchanges';
    else if (funStats.has('change')) status = 'change';
    else if (funStats.has('onfail')) status = 'onfail';
    else status = 'met';
    return { status, reqs };
  }

  /** verify_data: Salt's checks before a state function runs (state.single returns them as they are). */
  verifyData(low: LowChunk): string[] {
    const errors: string[] = [];
    const full = `${low.state}.${low.fun}`;
    const fn = this.opts.functions.find(full);
    if (!fn) {
      // A chunk of no SLS (state.single) gets Salt's shorter message, without the reason.
      if (low.__sls__ === undefined) return [`Specified state '${full}' was not found`];
      errors.push(`State '${full}' was not found in SLS '${low.__sls__}'`);
      const reason = this.opts.functions.missingReason(full);
      if (reason) errors.push(`Reason: ${reason}`);
      return errors;
    }
    for (const p of fn.required) if (!(p in low)) errors.push(`Missing parameter ${p} for state ${full}`);
    return errors;
  }

  /** call: one state function, timed and numbered (prereq look-aheads are not numbered). */
  private async call(low: LowChunk, _chunks: LowChunk[], running: Record<string, StateResult>): Promise<StateResult> {
    const startUs = this.clock.nowUs();
    const errors = this.verifyData(low);
    if (errors.length) {
      const ret = { result: false, name: low.name, changes: {}, comment: errors.map((e) => `${e}\n`).join('') } as StateResult;
      ret.__run_num__ = this.runNum++;
      return ret;
    }
    const test = this.opts.test || Boolean(low.__prereq__);
    let ret: StateResult;
    const check = await runCheck(low, this.opts.shellCheck);
    if (check) {
      ret = {
        result: true,
        name: low.name,
        changes: {},
        comment: check,
        __sls__: low.__sls__,
        __id__: low.__id__,
        skip_watch: true,
      } as StateResult;
    } else {
      const fn = this.opts.functions.find(`${low.state}.${low.fun}`)!;
      try {
        const saltenv = low.__env__ ?? 'base';
        ret = await fn.call(stateArgs(low), {
          test,
          low,
          running,
          saltenv,
          template: (p, n, c) => this.opts.template(p, n, saltenv, c),
          cacheFile: (s) => this.opts.cacheFile(s, saltenv),
          listFiles: (s) => this.opts.listFiles(s, saltenv),
          pillar: this.opts.pillar,
        });
      } catch (err) {
        ret = {
          result: false,
          name: low.name,
          changes: {},
          comment: `An exception occurred in this state: ${(err as Error).stack ?? String(err)}`,
        } as StateResult;
      }
    }
    if (low.__prereq__) {
      low.__prereq__ = false;
      return ret;
    }
    ret.__sls__ = low.__sls__;
    ret.__run_num__ = this.runNum++;
    const endUs = this.clock.nowUs();
    ret.start_time = this.clock.startTime(startUs);
    ret.duration = Math.round(endUs - startUs) / 1000;
    ret.__id__ = low.__id__;
    return ret;
  }
}

/**
 * The arguments a state function receives: the chunk minus Salt's bookkeeping keys and its
 * requisites, which Salt's format_call keeps out of a state's **kwargs too (a `require` of
 * salt.wheel would otherwise reach the wheel function).
 */
function stateArgs(low: LowChunk): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(low)) {
    if (k === 'state' || k === 'fun' || k === 'order' || k.startsWith('__') || REQUISITE_KEYWORDS.has(k)) continue;
    args[k] = v;
  }
  if (low.sfun !== undefined) args.sfun = low.sfun;
  return args;
}
