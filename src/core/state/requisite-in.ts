/**
 * The `_in` requisites and `prereq`'s reverse link, applied to low chunks before a run: `A:
 * require_in: B` becomes `B: require: A`, `A: prereq: B` gives B `prerequired: A`, and `use` copies
 * the arguments of the state it names. Show functions print the high data without these, as
 * Salt 3007 does.
 */
import { fnmatch } from '../pycompat';
import { isPlainObject, REQUISITE_KEYWORDS, type LowChunk } from './types';

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

export function applyRequisiteIn(chunks: LowChunk[]): void {
  for (const chunk of chunks) {
    const self = { [chunk.state]: chunk.__id__ };
    for (const kind of ['require', 'watch', 'onchanges', 'onfail', 'listen']) {
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
  for (const chunk of chunks) {
    for (const req of entries(chunk.use)) {
      for (const t of targets(req, chunks)) {
        for (const [k, v] of Object.entries(t)) {
          if (k in chunk || k.startsWith('__') || REQUISITE_KEYWORDS.has(k) || ['state', 'fun', 'name', 'order'].includes(k)) continue;
          chunk[k] = structuredClone(v);
        }
      }
    }
  }
}
