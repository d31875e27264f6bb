/**
 * YAML as Salt's SLS loader reads it (salt.utils.yamlloader.SaltYamlSafeLoader on libyaml):
 * YAML 1.1 scalars, integers with leading zeros read as decimal (`0644` is 644), timestamps kept
 * as text, duplicate keys refused with `found conflicting ID`, one document only. The `yaml`
 * package parses; errors are described with libyaml's words and PyYAML's marks (yaml-errors.ts).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node, type Scalar } from 'yaml';
import { constructBool, constructFloat, constructInt, deepCopy, markOrdered, resolvePlainScalar } from '../pycompat';
import { RenderError } from './errors';
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
  const value = parseSaltYaml(text);
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

function parseSaltYaml(text: string): unknown {
  const doc = parseDocument(text, { version: '1.1', schema: 'failsafe', uniqueKeys: false, prettyErrors: false, keepSourceTokens: false });
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
