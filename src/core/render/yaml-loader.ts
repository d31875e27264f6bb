/**
 * YAML as Salt's SLS loader reads it (salt.utils.yamlloader.SaltYamlSafeLoader on libyaml):
 * YAML 1.1 scalars, integers with leading zeros read as decimal (`0644` is 644), timestamps kept
 * as text, duplicate keys refused with `found conflicting ID`, one document only. The `yaml`
 * package parses; errors are described with libyaml's words and PyYAML's marks (yaml-errors.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { Document, Node, Scalar } from 'yaml';
import { yamlLib } from '../pycompat/yaml-lib';
import { cacheEntry, readCacheEntry, renderCacheDir, writeCacheEntry } from './disk-cache';
import { constructBool, constructFloat, constructInt, deepCopy, isOrdered, markOrdered, resolvePlainScalar } from '../pycompat';
import { RenderError } from './errors';
import { loadSimpleYaml } from '../pycompat/yaml-fast';
import { describeYamlError, markText, type Mark } from './yaml-errors';

const TAG = 'tag:yaml.org,2002:';

interface Ctx {
  doc: Document.Parsed;
  text: string;
  lineStarts: number[];
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/** The libyaml mark (0-based line and column) of a text offset. */
export function markAt(starts: number[], offset: number): Mark {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, column: offset - starts[lo] };
}

function fail(ctx: Ctx, context: string | null, contextNode: Node | null, problem: string, problemNode: Node): never {
  const lines: string[] = [];
  if (context) lines.push(context);
  if (contextNode?.range) lines.push(markText(markAt(ctx.lineStarts, contextNode.range[0])));
  lines.push(problem);
  if (problemNode.range) lines.push(markText(markAt(ctx.lineStarts, problemNode.range[0])));
  throw new RenderError('YAML_SYNTAX', lines.join('\n'));
}

/**
 * Load one YAML document as Salt does; an empty document is null. Throws RenderError whose
 * message is the text Salt shows after `Rendering SLS '...' failed: `.
 */
export function loadSaltYaml(text: string): unknown {
  const cached = LOADED.get(text);
  if (cached !== undefined) {
    // Most recently used last: the oldest entry is the one dropped.
    LOADED.delete(text);
    LOADED.set(text, cached);
    return deepCopy(cached.value);
  }
  // Plain block YAML is read directly (pycompat/yaml-fast.ts); the rest goes through the disk cache and the `yaml` package.
  let value = loadSimpleYaml(text);
  if (value === undefined) value = text.length <= CACHE_MAX_TEXT ? loadThroughDisk(text) : parseSaltYaml(text);
  if (text.length <= CACHE_MAX_TEXT) {
    LOADED.set(text, { value: deepCopy(value) });
    if (LOADED.size > CACHE_ENTRIES) LOADED.delete(LOADED.keys().next().value!);
  }
  return value;
}

/**
 * The data of texts loaded before, by text: a minion re-applying its states renders the same
 * SLS text each time, and parsing it was the largest cost of a re-apply. Callers get a deep copy
 * (the compiler changes what it is given).
 */
const LOADED = new Map<string, { value: unknown }>();
const CACHE_ENTRIES = 128;
const CACHE_MAX_TEXT = 256 * 1024;

/**
 * The data of a text parsed by an earlier process, from the render disk cache (disk-cache.ts):
 * a short command's first YAML parse is its slowest. Only plain data is kept (str, int, float,
 * bool, None, lists, dicts); anything else is parsed each time.
 */
function loadThroughDisk(text: string): unknown {
  const folder = renderCacheDir('yaml');
  if (!folder) return parseSaltYaml(text);
  const entry = cacheEntry(folder, [loaderFingerprint(), text], 'json');
  const stored = readCacheEntry(entry);
  if (stored !== undefined) {
    try {
      return decodeData(JSON.parse(stored));
    } catch {
      // A damaged entry is parsed again and rewritten.
    }
  }
  const value = parseSaltYaml(text);
  const encoded = encodeData(value, 0);
  if (encoded !== UNENCODABLE) writeCacheEntry(entry, JSON.stringify(encoded));
  return value;
}

let fingerprint: string | undefined;

/** What the loaded data depends on besides the text: this loader's code, the YAML 1.1 resolver and the yaml package's entry. */
function loaderFingerprint(): string {
  if (fingerprint !== undefined) return fingerprint;
  const h = createHash('sha256');
  const ext = extname(__filename);
  for (const f of [
    __filename,
    require.resolve('yaml'),
    join(__dirname, '..', 'pycompat', `yaml11-resolver${ext}`),
    join(__dirname, '..', 'pycompat', `ordered${ext}`),
  ]) {
    try {
      h.update(readFileSync(f));
    } catch {
      h.update(f);
    }
  }
  fingerprint = h.digest('hex');
  return fingerprint;
}

const UNENCODABLE = Symbol('unencodable');

/** Loaded data as JSON: lists as {l}, ordered dicts as {o}, other dicts as {d}, big ints as {i}, inf/nan as {f}. */
function encodeData(v: unknown, depth: number): unknown {
  if (depth > 500) return UNENCODABLE;
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? (Object.is(v, -0) ? UNENCODABLE : v) : { f: String(v) };
  if (typeof v === 'bigint') return { i: v.toString() };
  if (Array.isArray(v)) {
    const items = v.map((x) => encodeData(x, depth + 1));
    return items.includes(UNENCODABLE) ? UNENCODABLE : { l: items };
  }
  if (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const e = encodeData(x, depth + 1);
      if (e === UNENCODABLE) return UNENCODABLE;
      out[k] = e;
    }
    return isOrdered(v) ? { o: out } : { d: out };
  }
  return UNENCODABLE;
}

function decodeData(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  const e = v as { l?: unknown[]; o?: Record<string, unknown>; d?: Record<string, unknown>; i?: string; f?: string };
  if (e.l) return e.l.map(decodeData);
  if (e.i !== undefined) return BigInt(e.i);
  if (e.f !== undefined) return Number(e.f);
  const map = (e.o ?? e.d)!;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(map)) out[k] = decodeData(x);
  return e.o ? markOrdered(out) : out;
}

/** The full loader: the `yaml` package's document, read as Salt's loader reads it. */
export function parseSaltYaml(text: string): unknown {
  const doc = yamlLib().parseDocument(text, {
    version: '1.1',
    schema: 'failsafe',
    uniqueKeys: false,
    prettyErrors: false,
    keepSourceTokens: false,
  });
  if (doc.errors.length > 0) {
    const { message, code } = describeYamlError(text, doc.errors);
    throw new RenderError(code, message, { cause: doc.errors[0] });
  }
  return toValue(doc.contents, { doc, text, lineStarts: lineStarts(text) }, 0);
}

function keyText(key: unknown): string {
  if (key === null) return 'None';
  if (typeof key === 'boolean') return key ? 'True' : 'False';
  return String(key);
}

function toValue(node: unknown, ctx: Ctx, depth: number): unknown {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yamlLib();
  if (node === null || node === undefined) return null;
  if (depth > 500) throw new RenderError('YAML_SYNTAX', 'YAML nested too deeply (or a recursive alias)');
  if (isAlias(node)) {
    const target = node.resolve(ctx.doc);
    if (target === undefined) fail(ctx, null, null, 'found undefined alias', node as unknown as Node);
    return toValue(target, ctx, depth + 1);
  }
  if (isScalar(node)) return scalarValue(node, ctx);
  if (isSeq(node)) return node.items.map((item) => toValue(item, ctx, depth + 1));
  if (isMap(node)) {
    // Salt's YAML renderer builds OrderedDicts (the nested outputter keeps their order).
    const out: Record<string, unknown> = markOrdered({});
    // Keys copied by a merge (`<<`) may be set again explicitly.
    const merged = new Set<string>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      if (isScalar(keyNode) && keyNode.type === 'PLAIN' && keyNode.value === '<<' && !keyNode.tag) {
        const sources = toValue(pair.value, ctx, depth + 1);
        for (const m of Array.isArray(sources) ? sources : [sources]) {
          if (m === null || typeof m !== 'object' || Array.isArray(m)) {
            fail(
              ctx,
              'while constructing a mapping',
              node as unknown as Node,
              'expected a mapping or list of mappings for merging',
              pair.value as Node,
            );
          }
          for (const [k, v] of Object.entries(m as Record<string, unknown>)) {
            if (!(k in out)) {
              out[k] = v;
              merged.add(k);
            }
          }
        }
        continue;
      }
      const key = toValue(keyNode, ctx, depth + 1);
      if (key !== null && typeof key === 'object') {
        fail(ctx, 'while constructing a mapping', node as unknown as Node, `found unacceptable key`, keyNode as Node);
      }
      const name = keyText(key);
      if (Object.prototype.hasOwnProperty.call(out, name) && !merged.delete(name)) {
        fail(ctx, 'while constructing a mapping', node as unknown as Node, `found conflicting ID '${name}'`, keyNode as Node);
      }
      Object.defineProperty(out, name, {
        value: toValue(pair.value, ctx, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return null;
}

/** Salt's construct_scalar: `0644` is read as the decimal 644, not as octal. */
function scalarValue(node: Scalar, _ctx: Ctx): unknown {
  const text = String(node.value);
  const tag = node.tag;
  if (tag !== undefined && tag !== '!') {
    switch (tag) {
      case TAG + 'str':
        return text;
      case TAG + 'int':
        return constructInt(text);
      case TAG + 'float':
        return constructFloat(text);
      case TAG + 'bool':
        return constructBool(text);
      case TAG + 'null':
        return null;
      default:
        return text;
    }
  }
  if (node.type !== 'PLAIN') return text;
  return resolvePlainScalar(text);
}
