/**
 * The `_in` requisites and `prereq`'s reverse link, applied to low chunks before a run: `A:
 * require_in: B` becomes `B: require: A`, `A: prereq: B` gives B `prerequired: A`, `use` copies
 * the arguments of the state it names and `use_in` gives its own to the states it names (never
 * requisites, `name` or an argument the receiving state sets itself). Show functions print the
 * high data without these, as Salt 3007 does.
 */
import { fnmatch } from '../pycompat';
import { isPlainObject, type LowChunk } from './types';

function entries(list: unknown): Record<string, unknown>[] {
  if (!Array.isArray(list)) return [];
  return list.map((r) => (typeof r === 'string' ? { id: r } : r)).filter(isPlainObject);
}

function targets(req: Record<string, unknown>, chunks: LowChunk[]): LowChunk[] {
  const [key, raw] = Object.entries(req)[0] ?? [];
  if (raw === null || raw === undefined || key === undefined) return [];
  const val = String(raw);
  if (key === 'sls') return chunks.filter((c) => fnmatch(val, String(c.__sls__)));
  return chunks.filter((c) => (fnmatch(val, String(c.name)) || fnmatch(val, c.__id__)) && (key === 'id' || c.state === key));
}

function add(chunk: LowChunk, key: string, req: Record<string, unknown>): void {
  const list = Array.isArray(chunk[key]) ? (chunk[key] as unknown[]) : [];
  if (!list.some((r) => JSON.stringify(r) === JSON.stringify(req))) list.push(req);
  chunk[key] = list;
}

/** Arguments `use`/`use_in` never copy (Salt's req_in_all, name and names). */
const NOT_USED = new Set([
  'require_in',
  'watch_in',
  'onfail_in',
  'onchanges_in',
  'use',
  'use_in',
  'prereq',
  'prereq_in',
  'require',
  'watch',
  'onfail',
  'onfail_stop',
  'onchanges',
  'name',
  'names',
]);

/** Salt's use: `from`'s arguments that `to` does not set itself are added to `to`. */
function useArgs(from: LowChunk, to: LowChunk, own: ReadonlySet<string>): void {
  for (const [k, v] of Object.entries(from)) {
    if (own.has(k) || NOT_USED.has(k) || k.startsWith('__') || k === 'state' || k === 'fun' || k === 'order') continue;
    to[k] = structuredClone(v);
  }
}

export function applyRequisiteIn(chunks: LowChunk[]): void {
  // use / use_in first, from the arguments as written (Salt applies them with the other _in forms).
  const original = new Map(chunks.map((c) => [c, { ...c }] as const));
  const own = new Map(chunks.map((c) => [c, new Set(Object.keys(c))] as const));
  for (const chunk of chunks) {
    for (const req of entries(chunk.use)) for (const t of targets(req, chunks)) useArgs(original.get(t)!, chunk, own.get(chunk)!);
    for (const req of entries(chunk.use_in)) for (const t of targets(req, chunks)) useArgs(original.get(chunk)!, t, own.get(t)!);
  }
  for (const chunk of chunks) {
    const self = { [chunk.state]: chunk.__id__ };
    // listen_in stays as it is: the runner's callListen reads it.
    for (const kind of ['require', 'watch', 'onchanges', 'onfail']) {
      for (const req of entries(chunk[`${kind}_in`])) for (const t of targets(req, chunks)) add(t, kind, self);
    }
    for (const req of entries(chunk.prereq_in)) {
      for (const t of targets(req, chunks)) {
        add(t, 'prereq', self);
        add(chunk, 'prerequired', { [t.state]: t.__id__ });
      }
    }
    for (const req of entries(chunk.prereq)) for (const t of targets(req, chunks)) add(t, 'prerequired', self);
  }
}
