/**
 * Salt's `highstate` outputter (salt/output/highstate.py), in Salt's colours when asked: each state in
 * `__run_num__` order in the chosen `state_output` mode, then the summary block with Salt's
 * counting rules and column widths.
 *
 *   formatHighstate({ local: ret }, { stateOutput: 'terse' })
 */
import { NO_COLORS, type Colors } from './colors';
import type { HighstateOptions } from './highstate-options';
import { nestedLines } from '../../core/pycompat/nested';
import { pyFloat, pyStr } from '../../core/pycompat/repr';
import { pySplitlines } from '../../core/pycompat/text';

export const STATE_OUTPUT_MODES = ['full', 'terse', 'mixed', 'changes', 'full_id', 'terse_id', 'mixed_id', 'changes_id', 'filter'] as const;
export type StateOutputMode = (typeof STATE_OUTPUT_MODES)[number];

export { highstateOptionsOf, type HighstateOptions } from './highstate-options';

type Ret = Record<string, unknown>;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

/** The whole output for `{minion: return}`; minions in the order given. */
export function formatHighstate(data: Record<string, unknown>, opts: HighstateOptions = {}): string {
  const blocks: string[] = [];
  for (const [host, ret] of Object.entries(data)) blocks.push(formatHost(host, ret, opts));
  return blocks.join('\n');
}

function pyValue(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) && !Object.is(v, -0) ? String(v) : pyFloat(v);
  return pyStr(v);
}

function formatChanges(changes: unknown, colors: Colors): { changed: boolean; text: string } {
  if (!changes || (isObj(changes) && Object.keys(changes).length === 0) || (Array.isArray(changes) && changes.length === 0))
    return { changed: false, text: '' };
  if (!isObj(changes)) return { changed: true, text: `Invalid Changes data: ${pyStr(changes)}` };
  return { changed: true, text: '\n' + nestedLines(changes, 14, { colors }).join('\n') };
}

function resultWord(ret: Ret): string {
  if (ret.result === false) return 'Failed';
  if (ret.result === null || ret.result === undefined) return 'Differs';
  return isObj(ret.changes) && Object.keys(ret.changes).length ? 'Changed' : 'Clean';
}

function formatTerse(comps: string[], ret: Ret, nameIndex: number, profile: boolean, tcolor: string, c: Colors): string {
  let s = '';
  if (Array.isArray(ret.warnings)) s += `${c.LIGHT_RED}Warnings:\n${ret.warnings.map(String).join('\n')}${c.ENDC}`;
  s += ` ${tcolor} Name: ${comps[nameIndex]} - Function: ${comps[0]}.${comps[comps.length - 1]} - Result: ${resultWord(ret)}`;
  if (profile && 'start_time' in ret) s += ` - Started: ${pyStr(ret.start_time)} - Duration: ${pyValue(ret.duration)} ms`;
  return s + c.ENDC;
}

function formatHost(host: string, data: unknown, opts: HighstateOptions): string {
  const hstrs: string[] = [];
  const mode = (opts.stateOutput ?? 'full').toLowerCase();
  const verbose = opts.stateVerbose ?? true;
  const profile = opts.stateOutputProfile ?? true;
  const nameIndex = mode.endsWith('_id') ? 1 : 2;
  const base = mode.replace(/_id$/, '');
  const c = opts.colors ?? NO_COLORS;
  const header = (color: string): string => `${color}${host}:${c.ENDC}`;
  if (Array.isArray(data)) {
    hstrs.push(`    ${c.LIGHT_RED}Data failed to compile:${c.ENDC}`);
    for (const err of data) hstrs.push(`${c.LIGHT_RED}----------\n    ${pyStr(err).replace(/\x1b/g, '?')}${c.ENDC}`);
    return [header(c.LIGHT_RED), ...hstrs].join('\n');
  }
  if (!isObj(data)) {
    // A number or text (from saltmod.function): green lines under a cyan host.
    const lines = typeof data === 'string' ? pySplitlines(data) : [pyStr(data)];
    return [header(c.CYAN), ...lines.map((l) => `${c.GREEN}    ${l}${c.ENDC}`)].join('\n');
  }
  let hcolor = c.GREEN;
  const counts = new Map<string, number>();
  const bump = (k: string): void => void counts.set(k, (counts.get(k) ?? 0) + 1);
  let nchanges = 0;
  let durations = 0;
  const states = Object.entries(data).filter((e): e is [string, Ret] => isObj(e[1]) && 'result' in e[1]);
  states.sort((a, b) => Number(a[1].__run_num__ ?? 0) - Number(b[1].__run_num__ ?? 0));
  for (const [tname, ret] of states) {
    bump(String(ret.result));
    const d = Number(ret.duration ?? 0);
    if (!Number.isNaN(d)) durations += d;
    const { changed, text } = formatChanges(ret.changes, c);
    if (changed) nchanges++;
    if (opts.stateOutputDiff && ret.result && !changed) continue;
    if (!verbose && ret.result && !changed) continue;
    let tcolor = changed ? c.CYAN : c.GREEN;
    if (ret.result === false) hcolor = tcolor = c.RED;
    if (ret.result === null) hcolor = tcolor = c.LIGHT_YELLOW;
    const comps = tname.split('_|-');
    // The _id modes show the ID where the name would be, in full blocks too (no Name line; Salt's Refs #35137).
    if (mode.endsWith('_id')) comps[2] = comps[1];
    if (base === 'terse' || (base === 'mixed' && ret.result !== false) || (base === 'changes' && ret.result && !changed)) {
      hstrs.push(formatTerse(comps, ret, nameIndex, profile, tcolor, c));
      continue;
    }
    const lines = [
      '----------',
      `          ID: ${comps[1]}`,
      `    Function: ${comps[0]}.${comps[comps.length - 1]}`,
      `      Result: ${pyStr(ret.result)}`,
    ];
    if (comps[1] !== comps[2]) lines.push(`        Name: ${comps[2]}`);
    // Name goes before Result, as Salt inserts it at index 3.
    if (comps[1] !== comps[2]) lines.splice(3, 0, lines.pop()!);
    let comment: string;
    if (typeof ret.comment === 'string') comment = ret.comment.trim().replace(/\n/g, '\n' + ' '.repeat(14));
    else if (Array.isArray(ret.comment))
      comment = ret.comment
        .map(String)
        .join(' ')
        .replace(/\n/g, '\n' + ' '.repeat(13));
    else
      comment = pyStr(ret.comment ?? '')
        .trim()
        .replace(/\n/g, '\n' + ' '.repeat(14));
    lines.push(`     Comment: ${comment}`);
    if (profile && 'start_time' in ret) {
      lines.push(`     Started: ${pyStr(ret.start_time)}`);
      lines.push(`    Duration: ${pyValue(ret.duration)} ms`);
    }
    // Salt colours each line after its first four spaces (the separator from its start).
    hstrs.push(...lines.map((l) => (l === '----------' ? `${tcolor}${l}${c.ENDC}` : `    ${tcolor}${l.slice(4)}${c.ENDC}`)));
    hstrs.push(`${tcolor}     Changes:   ${text}${c.ENDC}`);
    if (Array.isArray(ret.warnings)) {
      bump('warnings');
      hstrs.push(`   ${c.LIGHT_RED} Warnings: ${wrap(ret.warnings.map(String).join('\n'), 80, 14).trimStart()}${c.ENDC}`);
    }
  }
  const labels = { True: 'Succeeded', False: 'Failed', warnings: 'Warnings' };
  const countMax = Math.max(0, ...[...counts.values()].map((c) => String(c).length));
  const labelMax = Math.max(...['Succeeded', 'Failed', 'Not Run', 'Warnings'].map((l) => l.length));
  const lineMax = labelMax + countMax + 2;
  const row = (label: string, count: number): string => `${label}: ${String(count).padStart(lineMax - (label.length + 2))}`;
  const paint = (color: string, text: string): string => `${color}${text}${c.ENDC}`;
  hstrs.push(paint(c.CYAN, `\nSummary for ${host}\n${'-'.repeat(lineMax)}`));
  const stats: string[] = [];
  const none = counts.get('null') ?? 0;
  if (none > 0) stats.push(paint(c.LIGHT_YELLOW, `unchanged=${none}`));
  if (nchanges > 0) stats.push(paint(c.GREEN, `changed=${nchanges}`));
  hstrs.push(paint(c.GREEN, row(labels.True, (counts.get('true') ?? 0) + none)) + (stats.length ? ` (${stats.join(', ')})` : ''));
  const failed = counts.get('false') ?? 0;
  hstrs.push(paint(failed ? c.RED : c.CYAN, row(labels.False, failed)));
  const warnings = counts.get('warnings') ?? 0;
  if (warnings) hstrs.push(paint(c.LIGHT_RED, row(labels.warnings, warnings)));
  const total = [...counts.entries()].filter(([k]) => k !== 'warnings').reduce((a, [, v]) => a + v, 0);
  hstrs.push(paint(c.CYAN, `${'-'.repeat(lineMax)}\nTotal states run: ${String(total).padStart(lineMax - 7)}`));
  if (profile) {
    let sum = durations;
    let unit = 'ms';
    if (sum > 999) {
      sum /= 1000;
      unit = 's';
    }
    hstrs.push(paint(c.CYAN, `Total run time: ${sum.toFixed(3).padStart(lineMax - 5)} ${unit}`));
  }
  return [header(hcolor), ...hstrs].join('\n');
}

/** textwrap.fill with the same indent for every line. */
function wrap(text: string, width: number, indent: number): string {
  const pad = ' '.repeat(indent);
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let cur = '';
  for (const w of words) {
    if (cur && pad.length + cur.length + 1 + w.length > width) {
      lines.push(pad + cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(pad + cur);
  return lines.join('\n');
}
