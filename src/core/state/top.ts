/**
 * The top file: which SLS files apply to this minion, per saltenv (Salt's get_top +
 * top_matches). Targets are globs unless a `- match: <type>` line says otherwise.
 */
import { matchTarget, type TargetType } from '../targeting';
import type { SlsRenderer } from './render-sls';
import type { SlsSource } from './sls-source';
import { isPlainObject } from './types';

export interface TopContext {
  source: SlsSource;
  renderer: SlsRenderer;
  stateTop: string;
  minionId: string;
  grains: Record<string, unknown>;
  pillar: Record<string, unknown>;
}

const MATCHERS: Record<string, TargetType> = {
  glob: 'glob', pcre: 'pcre', list: 'list', grain: 'grain', grain_pcre: 'grain_pcre', pillar: 'pillar',
  pillar_pcre: 'pillar_pcre', ipcidr: 'ipcidr', compound: 'compound', nodegroup: 'nodegroup',
};

/** `{saltenv: [sls, ...]}` for this minion, in the top file's order; errors as Salt's strings. */
export async function topMatches(ctx: TopContext): Promise<{ matches: Record<string, string[]>; errors: string[] }> {
  const matches: Record<string, string[]> = {};
  const errors: string[] = [];
  for (const env of await ctx.source.envs()) {
    const file = await ctx.source.getFile(env, ctx.stateTop);
    if (!file) continue;
    const { readFileSync } = await import('node:fs');
    let top: unknown;
    try {
      top = await ctx.renderer.render({ path: file.path, source: ctx.stateTop, text: readFileSync(file.path, 'utf8') }, { saltenv: env, sls: '', grains: ctx.grains, pillar: ctx.pillar, roots: ctx.source.roots(env) });
    } catch (err) {
      errors.push(`Rendering Primary Top File failed, render error:\n${(err as Error).message}`);
      continue;
    }
    if (!isPlainObject(top)) continue;
    for (const [saltenv, targets] of Object.entries(top)) {
      if (!isPlainObject(targets)) continue;
      for (const [tgt, items] of Object.entries(targets)) {
        const list = Array.isArray(items) ? items : [items];
        let tgtType: TargetType = 'glob';
        const sls: string[] = [];
        for (const item of list) {
          if (isPlainObject(item)) {
            if ('match' in item) tgtType = MATCHERS[String(item.match)] ?? 'glob';
          } else if (typeof item === 'string') sls.push(item);
        }
        const minion = { id: ctx.minionId, grains: ctx.grains, pillar: ctx.pillar };
        if (!matchTarget({ tgt, tgtType }, minion)) continue;
        const into = (matches[saltenv] ??= []);
        for (const s of sls) if (!into.includes(s)) into.push(s);
      }
    }
  }
  return { matches, errors };
}
