/**
 * The top file: which SLS files apply to this minion, per saltenv (Salt's get_top +
 * top_matches). Targets are compound expressions unless a `- match: <type>` line says otherwise;
 * several saltenvs' top files are merged as top_file_merging_strategy says (top-merge.ts).
 */
import { readFileSync } from 'node:fs';
import { fnmatch } from '../pycompat';
import { matchTarget, type Nodegroups, type TargetType } from '../targeting';
import { subdictMatch } from '../targeting/subdict';
import type { SlsRenderer } from './render-sls';
import type { SlsSource } from './sls-source';
import { TopMergeError, mergeTops, topEnvs, topMergeStrategy, type TopData } from './top-merge';
import { isPlainObject } from './types';

export interface TopContext {
  source: SlsSource;
  renderer: SlsRenderer;
  stateTop: string;
  minionId: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
  /** The minion's `top_file_merging_strategy` (merge, same, merge_all). Default merge. */
  strategy?: unknown;
  /** The minion's `env_order`: the saltenvs whose top files are read, in this order. */
  envOrder?: unknown[];
  /** The minion's `default_top` (the fallback of `same`). Default base. */
  defaultTop?: string;
  /** A saltenv given to the run: only its top file and its section count. */
  saltenv?: string | null;
  nodegroups?: Nodegroups;
  warn?: (msg: string) => void;
}

const MATCHERS: Record<string, TargetType | 'pillar_exact'> = {
  glob: 'glob',
  pcre: 'pcre',
  list: 'list',
  grain: 'grain',
  grain_pcre: 'grain_pcre',
  pillar: 'pillar',
  pillar_pcre: 'pillar_pcre',
  // Salt's pillar_exact matcher exists for top files only (no CLI flag, no compound letter).
  pillar_exact: 'pillar_exact',
  ipcidr: 'ipcidr',
  compound: 'compound',
  nodegroup: 'nodegroup',
};

/** A target that cannot be parsed matches nothing, as Salt's confirm_top answers False. */
function confirm(
  tgt: string,
  tgtType: TargetType | 'pillar_exact',
  minion: { id: string; grains: Record<string, unknown>; pillar: Record<string, unknown> },
  nodegroups: Nodegroups,
): boolean {
  if (tgtType === 'pillar_exact') return subdictMatch(minion.pillar, tgt, ':', 'exact');
  try {
    return matchTarget({ tgt, tgtType }, minion, { nodegroups });
  } catch {
    return false;
  }
}

/** Render one top file of `env`; a missing one is `{}`. Errors are Salt's strings. */
async function renderTop(ctx: TopContext, env: string, source: string, errors: string[]): Promise<TopData> {
  const file = await ctx.source.getFile(env, source);
  if (!file) return {};
  try {
    const top = await ctx.renderer.render(
      { path: file.path, source, text: readFileSync(file.path, 'utf8') },
      { saltenv: env, sls: '', grains: ctx.grains, pillar: ctx.pillar, roots: ctx.source.roots(env) },
    );
    return isPlainObject(top) ? top : {};
  } catch (err) {
    errors.push(`Rendering Primary Top File failed, render error:\n${(err as Error).message}`);
    return {};
  }
}

/** The top files per saltenv, with the files their `include:` names (Salt's `get_tops`). */
async function gatherTops(ctx: TopContext, errors: string[]): Promise<Map<string, TopData[]>> {
  const tops = new Map<string, TopData[]>();
  const envs = ctx.saltenv ? [ctx.saltenv] : topEnvs(await ctx.source.envs(), ctx.envOrder);
  for (const env of envs) tops.set(env, [await renderTop(ctx, env, ctx.stateTop, errors)]);
  for (const [env, list] of tops) {
    const done = new Set<string>();
    for (let i = 0; i < list.length; i++) {
      const include = list[i].include;
      delete list[i].include;
      if (!Array.isArray(include)) continue;
      const avail = await ctx.source.listSls(env);
      for (const pattern of include) {
        for (const sls of avail.filter((n) => fnmatch(n, String(pattern)))) {
          if (done.has(sls)) continue;
          done.add(sls);
          const file = await ctx.source.getSls(env, sls);
          if (file) list.push(await renderTop(ctx, env, file.source, errors));
        }
      }
    }
  }
  return tops;
}

/** `{saltenv: [sls, ...]}` for this minion, in the top file's order; errors as Salt's strings. */
export async function topMatches(ctx: TopContext): Promise<{ matches: Record<string, string[]>; errors: string[] }> {
  const matches: Record<string, string[]> = {};
  const errors: string[] = [];
  const warn = ctx.warn ?? (() => {});
  const strategy = topMergeStrategy(ctx.strategy, warn);
  const defaultTop = ctx.defaultTop ?? 'base';
  if (strategy === 'same' && !ctx.saltenv && !defaultTop) {
    warn("Unable to render top file: top_file_merging_strategy set to 'same', but no default_top configuration option was set");
    return { matches, errors };
  }
  let top;
  try {
    top = mergeTops(await gatherTops(ctx, errors), strategy, defaultTop, warn);
  } catch (err) {
    if (!(err instanceof TopMergeError)) throw err;
    warn(`Unable to render top file: ${err.message}`);
    return { matches, errors };
  }
  const minion = { id: ctx.minionId, grains: ctx.grains, pillar: ctx.pillar };
  for (const [saltenv, targets] of top) {
    if (ctx.saltenv && saltenv !== ctx.saltenv) continue;
    for (const [tgt, list] of targets) {
      // Salt's confirm_top: compound unless a `- match:` line names another matcher.
      // An unknown matcher matches nothing (Salt 3007 fails on it with a KeyError).
      let tgtType: TargetType | 'pillar_exact' | undefined = 'compound';
      const sls: string[] = [];
      for (const item of list) {
        if (isPlainObject(item)) {
          if ('match' in item) tgtType = MATCHERS[String(item.match)];
        } else if (typeof item === 'string') sls.push(item);
      }
      if (tgtType === undefined || !confirm(tgt, tgtType, minion, ctx.nodegroups ?? {})) continue;
      const into = (matches[saltenv] ??= []);
      for (const s of sls) if (!into.includes(s)) into.push(s);
    }
  }
  return { matches, errors };
}
