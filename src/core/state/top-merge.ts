/**
 * How the top files of several saltenvs become one (Salt's HighState `_get_envs` and
 * `merge_tops`): the order environments are read in (`env_order`), and the three
 * `top_file_merging_strategy` values:
 * - `merge` (default): base's top file is authoritative; another env's top file counts only for
 *   its own section, and only if base did not define that env;
 * - `same`: each env's section comes from that env's own top file only (an env without a top file
 *   falls back to `default_top`'s section for it);
 * - `merge_all`: every section of every top file, the SLS lists of one target joined.
 * Pure functions over rendered top data; reading and rendering the files is top.ts's.
 */
type Dict = Record<string, unknown>;
/** A rendered top file: `{saltenv: {target: [match dicts and SLS names]}}`. */
export type TopData = Dict;
/** Merged top data: saltenv -> target -> items, in order. */
export type MergedTop = Map<string, Map<string, unknown[]>>;

export type TopMergeStrategy = 'merge' | 'same' | 'merge_all';

export class TopMergeError extends Error {
  readonly code = 'TOP_MERGE';
  constructor(message: string) {
    super(message);
    this.name = 'TopMergeError';
  }
}

function isDict(v: unknown): v is Dict {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The saltenvs whose top files are read, in order (Salt's `HighState._get_envs`). */
export function topEnvs(available: readonly string[], envOrder: readonly unknown[] = []): string[] {
  const order = [...new Set(envOrder.map(String))];
  if (order.length > 0) return available.length > 0 ? order.filter((e) => available.includes(e)) : order;
  return ['base', ...available.filter((e) => e !== 'base')];
}

/** The strategy named by the option; an unknown one is `merge`, as Salt falls back. */
export function topMergeStrategy(value: unknown, warn: (msg: string) => void = () => {}): TopMergeStrategy {
  const name = value === undefined || value === null ? 'merge' : String(value);
  if (name === 'merge' || name === 'same' || name === 'merge_all') return name;
  warn(`Invalid top_file_merging_strategy '${name}', falling back to 'merge'`);
  return 'merge';
}

function sections(ctop: TopData): [string, Dict][] {
  const out: [string, Dict][] = [];
  for (const [saltenv, targets] of Object.entries(ctop)) {
    if (saltenv === 'include') continue;
    if (!isDict(targets)) throw new TopMergeError('Unable to render top file. No targets found.');
    out.push([saltenv, targets]);
  }
  return out;
}

function set(top: MergedTop, saltenv: string, tgt: string, items: unknown): void {
  if (!top.has(saltenv)) top.set(saltenv, new Map());
  top.get(saltenv)!.set(tgt, Array.isArray(items) ? items : [items]);
}

function mergeMerge(tops: Map<string, TopData[]>): MergedTop {
  const top: MergedTop = new Map();
  for (const ctop of tops.get('base') ?? []) {
    for (const [saltenv, targets] of sections(ctop)) for (const [tgt, items] of Object.entries(targets)) set(top, saltenv, tgt, items);
  }
  const fromBase = new Set(top.keys());
  for (const [cenv, ctops] of tops) {
    if (cenv === 'base') continue;
    for (const ctop of ctops) {
      for (const [saltenv, targets] of sections(ctop)) {
        if (saltenv !== cenv || fromBase.has(saltenv)) continue;
        for (const [tgt, items] of Object.entries(targets)) set(top, saltenv, tgt, items);
      }
    }
  }
  return top;
}

function mergeSame(tops: Map<string, TopData[]>, defaultTop: string, log: (msg: string) => void): MergedTop {
  const top: MergedTop = new Map();
  const empty = (list: TopData[] | undefined) => (list ?? []).every((t) => Object.keys(t).length === 0);
  for (const [cenv, ctops] of tops) {
    if (!empty(ctops)) {
      for (const ctop of ctops) {
        for (const [saltenv, targets] of sections(ctop)) {
          if (saltenv !== cenv) continue;
          for (const [tgt, items] of Object.entries(targets)) set(top, saltenv, tgt, items);
        }
      }
      continue;
    }
    const fallback = tops.get(defaultTop);
    if (empty(fallback)) {
      log(`The '${cenv}' saltenv has no top file, and the fallback saltenv specified by default_top (${defaultTop}) also has no top file`);
      continue;
    }
    let found = false;
    for (const ctop of fallback ?? []) {
      const targets = ctop[cenv];
      if (!isDict(targets)) continue;
      for (const [tgt, items] of Object.entries(targets)) set(top, cenv, tgt, items);
      found = true;
    }
    if (!found)
      log(`The '${cenv}' saltenv has no top file, and no matches were found in the top file for the default_top saltenv (${defaultTop})`);
  }
  return top;
}

function mergeAll(tops: Map<string, TopData[]>): MergedTop {
  const read = (items: unknown[]) => {
    let match: unknown = null;
    const states: unknown[] = [];
    for (const item of items) {
      if (isDict(item)) match = item;
      if (typeof item === 'string') states.push(item);
    }
    return { match, states };
  };
  const top: MergedTop = new Map();
  for (const ctops of tops.values()) {
    for (const ctop of ctops) {
      for (const [saltenv, targets] of sections(ctop)) {
        for (const [tgt, raw] of Object.entries(targets)) {
          const items = Array.isArray(raw) ? raw : [raw];
          const known = top.get(saltenv)?.get(tgt);
          if (!known) {
            set(top, saltenv, tgt, items);
            continue;
          }
          const first = read(known);
          const second = read(items);
          const merged: unknown[] = [];
          const match = second.match ?? first.match;
          if (match !== null) merged.push(match);
          merged.push(...first.states);
          for (const s of second.states) if (!merged.includes(s)) merged.push(s);
          set(top, saltenv, tgt, merged);
        }
      }
    }
  }
  return top;
}

/**
 * One top from the top files read per saltenv (`tops` in reading order).
 *
 * @example
 * mergeTops(new Map([['base', [{ base: { '*': ['core'] } }]], ['dev', [{ dev: { '*': ['tools'] } }]]]), 'merge', 'base')
 * // Map { 'base' => Map { '*' => ['core'] }, 'dev' => Map { '*' => ['tools'] } }
 */
export function mergeTops(
  tops: Map<string, TopData[]>,
  strategy: TopMergeStrategy,
  defaultTop = 'base',
  log: (msg: string) => void = () => {},
): MergedTop {
  if (strategy === 'same') return mergeSame(tops, defaultTop, log);
  if (strategy === 'merge_all') return mergeAll(tops);
  return mergeMerge(tops);
}
