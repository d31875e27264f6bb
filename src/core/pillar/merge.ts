/**
 * Salt's `salt.utils.dictupdate.merge`: how pillar SLS files, ext_pillar sources and the
 * command-line override are merged (`pillar_source_merging_strategy`, `pillar_merge_lists`).
 * Keys already present keep their place; new keys are appended in the order of the newer data.
 */
import { dictUpdate, isDict } from '../pycompat';

type Dict = Record<string, unknown>;

export type MergeStrategy = 'smart' | 'recurse' | 'aggregate' | 'overwrite' | 'none' | 'list';

export const MERGE_STRATEGIES: readonly MergeStrategy[] = ['smart', 'recurse', 'aggregate', 'overwrite', 'none', 'list'];

/** `dictupdate.update`: merge `upd` into `dest` (changed in place) recursively. */
export function update(dest: Dict, upd: Dict, mergeLists = false): Dict {
  return dictUpdate(dest, upd, { mergeLists });
}

/** `merge_aggregate` without YAMLEX tags: maps merge recursively and lists are concatenated. */
function aggregate(a: Dict, b: Dict): Dict {
  const out: Dict = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    if (isDict(cur) && isDict(v)) out[k] = aggregate(cur, v);
    else if (Array.isArray(cur) && Array.isArray(v)) out[k] = [...cur, ...v];
    else out[k] = v;
  }
  return out;
}

/**
 * Merge `b` over `a` as Salt does. `smart` is `recurse` (brine has no yamlex renderer),
 * `none` is `recurse` without list merging, an unknown strategy falls back to `recurse`.
 * `a` is changed (its top level is copied first, as in Salt): pass data you own.
 */
export function mergePillar(a: Dict, b: Dict, strategy: string = 'smart', mergeLists = false): Dict {
  switch (strategy) {
    case 'aggregate':
      return aggregate(a, b);
    case 'overwrite': {
      for (const k of Object.keys(b)) if (k in a) a[k] = b[k];
      return update({ ...a }, b, mergeLists);
    }
    case 'list':
      return update({ ...a }, b, true);
    case 'none':
      return update({ ...a }, b, false);
    default:
      return update({ ...a }, b, mergeLists);
  }
}
