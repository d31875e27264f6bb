import { buildAtom, type AtomEngine, type Matcher, type MinionData } from './atoms';
import { compileCompound } from './compound';
import { expandNodegroup, type Nodegroups } from './nodegroup';
import { TargetError } from '../errors';

/**
 * Targeting: which minions a job is for. Pure functions of (expression, minion id, grains, pillar),
 * shared by the master (expected minions) and the minion (does this job concern me?). Semantics
 * follow Salt's matchers (`salt/matchers/*.py`, `salt/utils/minions.py`); see docs/design.md.
 */

export { fnmatch } from '../pycompat/fnmatch';
export type { MinionData } from './atoms';
export type { Nodegroups } from './nodegroup';

export type TargetType = 'glob' | 'pcre' | 'list' | 'grain' | 'grain_pcre' | 'pillar' | 'pillar_pcre' | 'ipcidr' | 'compound' | 'nodegroup';

export interface Target {
  tgt: string | string[];
  tgtType: TargetType;
  /** Separates grain/pillar keys in grain, grain_pcre, pillar and pillar_pcre targets (default ':'). */
  delimiter?: string;
}

export interface TargetOptions {
  /** The master's `nodegroups:` map. */
  nodegroups?: Nodegroups;
}

export const TARGET_TYPES: readonly TargetType[] = [
  'glob',
  'pcre',
  'list',
  'grain',
  'grain_pcre',
  'pillar',
  'pillar_pcre',
  'ipcidr',
  'compound',
  'nodegroup',
];

/**
 * Whether this minion is targeted. Never throws: a malformed expression matches nothing, as in Salt.
 * A target needing grains or pillar the minion data lacks does not match.
 */
export function matchTarget(target: Target, minion: MinionData, opts: TargetOptions = {}): boolean {
  if (!isMinionData(minion)) return false;
  return compile(target, opts ?? {}).match(minion) === true;
}

/**
 * Throw a TargetError (code BAD_TARGET) saying what is wrong with the expression and where;
 * return quietly when it is usable. The CLI and the master call this before publishing.
 */
export function checkTarget(target: Target, opts: TargetOptions = {}): void {
  const compiled = compile(target, opts);
  if (compiled.problem !== undefined) {
    throw new TargetError('BAD_TARGET', `${describeTarget(target)}: ${compiled.problem}`, {
      hint: 'See "Targeting" in the Salt documentation for the expression syntax.',
    });
  }
}

/** Whether matching this target needs the minions' grains or pillar. */
export function needsData(target: Target, opts: TargetOptions = {}): boolean {
  return compile(target, opts).needsData;
}

/**
 * The ids among `minions` (in input order) that the target may concern. Greedy, as Salt's master
 * is: a minion whose grains (or pillar) are unknown is included when the answer depends on them,
 * and then decides for itself.
 */
export function expectedMinions(target: Target, minions: readonly MinionData[], opts: TargetOptions = {}): string[] {
  const { match } = compile(target, opts ?? {});
  const out: string[] = [];
  minions.forEach((m, index) => {
    if (!isMinionData(m)) {
      throw new TargetError('BAD_MINION_DATA', `minion data at index ${index} has no string 'id'`);
    }
    if (match(m) !== false) out.push(m.id);
  });
  return out;
}

function isMinionData(m: unknown): m is MinionData {
  return typeof m === 'object' && m !== null && typeof (m as MinionData).id === 'string';
}

/**
 * The target as it should travel on the wire: a nodegroup (or a compound naming `N@` groups)
 * becomes the expanded compound expression, because minions do not know the master's nodegroups.
 * Other targets are returned unchanged. Throws TargetError when the target is invalid.
 */
export function expandNodegroups(target: Target, opts: TargetOptions = {}): Target {
  checkTarget(target, opts);
  if (target.tgtType !== 'nodegroup' && target.tgtType !== 'compound') return target;
  const words = compile(target, opts).words;
  if (words === undefined) return target;
  return { tgt: words.join(' '), tgtType: 'compound' };
}

interface Compiled {
  match: Matcher;
  needsData: boolean;
  problem?: string;
  words?: string[];
}

const NEVER: Matcher = () => false;

function compileUncached(target: Target, opts: TargetOptions): Compiled {
  if (typeof target !== 'object' || target === null) return { match: NEVER, needsData: false, problem: 'not a target' };
  const { tgt, tgtType } = target;
  const delimiter = target.delimiter ?? ':';
  if (typeof delimiter !== 'string') return { match: NEVER, needsData: false, problem: 'the delimiter must be a string' };
  switch (tgtType) {
    case 'compound':
      return compileCompound(tgt, opts.nodegroups);
    case 'nodegroup': {
      if (typeof tgt !== 'string') return { match: NEVER, needsData: false, problem: 'a nodegroup target must be a name' };
      const problems: string[] = [];
      const words = expandNodegroup(tgt, opts.nodegroups, problems);
      if (words.length === 0) return { match: NEVER, needsData: false, problem: problems[0] ?? 'the nodegroup is empty' };
      const compiled = compileCompound(words, opts.nodegroups);
      return { ...compiled, problem: problems[0] ?? compiled.problem };
    }
    case 'glob':
    case 'pcre':
    case 'list':
    case 'grain':
    case 'grain_pcre':
    case 'pillar':
    case 'pillar_pcre':
    case 'ipcidr':
      return buildAtom(tgtType satisfies AtomEngine, tgt, delimiter);
    default:
      return {
        match: NEVER,
        needsData: false,
        problem: `unknown target type '${String(tgtType)}' (expected one of ${TARGET_TYPES.join(', ')})`,
      };
  }
}

function describeTarget(target: Target): string {
  const type = typeof target === 'object' && target !== null ? String(target.tgtType) : 'invalid';
  let text: string;
  try {
    text = typeof target?.tgt === 'string' ? `'${target.tgt}'` : (JSON.stringify(target?.tgt) ?? String(target?.tgt));
  } catch {
    text = String(target?.tgt);
  }
  return `${type} target ${text}`;
}

// The master matches every accepted minion against the same expression: compile it once. Caches
// are per nodegroups object, so a reloaded master config never sees stale expansions.
const CACHE_LIMIT = 512;
const noGroups = new Map<string, Compiled>();
const byGroups = new WeakMap<object, Map<string, Compiled>>();

function compile(target: Target, opts: TargetOptions): Compiled {
  let key: string;
  try {
    key = `${String(target?.tgtType)}\u0000${String(target?.delimiter ?? ':')}\u0000${JSON.stringify(target?.tgt)}`;
  } catch {
    return compileUncached(target, opts);
  }
  let cache = noGroups;
  if (opts.nodegroups !== undefined && opts.nodegroups !== null) {
    cache = byGroups.get(opts.nodegroups) ?? new Map();
    byGroups.set(opts.nodegroups, cache);
  }
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const compiled = compileUncached(target, opts);
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(key, compiled);
  return compiled;
}
