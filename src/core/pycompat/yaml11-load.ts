/**
 * Load YAML the way Salt does (PyYAML SafeLoader + SaltYamlSafeLoader): YAML 1.1 implicit types,
 * duplicate keys refused, one document only. The `yaml` package parses (failsafe schema: every
 * scalar a string, plus its quoting style); yaml11-resolver.ts gives plain scalars their types.
 */
import type { Alias, Document, Node, Scalar } from 'yaml';
import { yamlLib } from './yaml-lib';
import { loadSimpleYaml } from './yaml-fast';
import { ConfigError } from '../errors';
import { classifyPlainScalar, constructBool, constructFloat, constructInt, resolvePlainScalar } from './yaml11-resolver';

const TAG = 'tag:yaml.org,2002:';

/** A value as Salt would load it: plain objects for maps, arrays, strings, numbers (bigint past 2^53), booleans, null. */
export type YamlValue = null | boolean | number | bigint | string | YamlValue[] | { [key: string]: YamlValue };

/**
 * Parse one YAML document. `source` names the file in error messages.
 * Throws ConfigError (code BAD_YAML) naming the source and line.
 */
export function loadYaml(text: string, source = '<string>'): YamlValue {
  let doc: Document.Parsed;
  try {
    doc = yamlLib().parseDocument(text, { schema: 'failsafe', version: '1.1', uniqueKeys: true, prettyErrors: true });
  } catch (err) {
    throw new ConfigError('BAD_YAML', `${source}: cannot parse YAML: ${(err as Error).message}`, { cause: err });
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0].line;
    const where = line === undefined ? '' : ` (line ${line})`;
    const what = first.message.split('\n')[0].replace(/ at line \d+, column \d+:$/, '');
    throw new ConfigError('BAD_YAML', `${source}${where}: invalid YAML: ${what}`, { cause: first });
  }
  return toValue(doc.contents, { doc, source, text });
}

/** Whether `=` stands anywhere in the data, as a key or a value (then the full loader decides). */
function holdsPlainEquals(v: unknown): boolean {
  if (v === '=') return true;
  if (Array.isArray(v)) return v.some(holdsPlainEquals);
  return v !== null && typeof v === 'object' && Object.entries(v).some(([k, x]) => k === '=' || holdsPlainEquals(x));
}

/**
 * As loadYaml, plus the line of each top-level key (when the document is a mapping), so a
 * config loader can say where an unknown or invalid option is.
 */
export function loadYamlWithLines(text: string, source = '<string>'): { value: YamlValue; keyLines: Map<string, number> } {
  const keyLines = new Map<string, number>();
  // Most config files are plain block YAML (or only comments): read without the `yaml` package.
  if (/^(?:[ \t]*(?:#.*)?(?:\r?\n|$))*$/.test(text)) return { value: null, keyLines };
  const simple = loadSimpleYaml(text, { ordered: false, keyLines });
  // A plain `=` is PyYAML's value tag, which this loader refuses: the full loader says so.
  if (simple !== undefined && !holdsPlainEquals(simple)) return { value: simple as YamlValue, keyLines };
  keyLines.clear();
  const value = loadYaml(text, source);
  const { isMap, isScalar, parseDocument } = yamlLib();
  const doc = parseDocument(text, { schema: 'failsafe', version: '1.1' });
  if (isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && pair.key.range) keyLines.set(String(pair.key.value), lineOf(text, pair.key.range[0]));
    }
  }
  return { value, keyLines };
}

/** The 1-based line where a node starts, for messages about values. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

interface Ctx {
  doc: Document.Parsed;
  source: string;
  text: string;
}

function fail(ctx: Ctx, node: Node | null | undefined, message: string): never {
  const offset = node?.range?.[0];
  const where = offset === undefined ? '' : ` (line ${lineOf(ctx.text, offset)})`;
  throw new ConfigError('BAD_YAML', `${ctx.source}${where}: ${message}`);
}

function toValue(node: unknown, ctx: Ctx, depth = 0): YamlValue {
  const { isAlias, isMap, isPair, isScalar, isSeq } = yamlLib();
  if (depth > 200) fail(ctx, node as Node, 'YAML nested too deeply (or a recursive alias)');
  if (node === null || node === undefined) return null;
  if (isAlias(node)) {
    const target = (node as Alias).resolve(ctx.doc);
    if (target === undefined) fail(ctx, node as Node, `unknown alias *${(node as Alias).source}`);
    return toValue(target, ctx, depth + 1);
  }
  if (isScalar(node)) return scalarValue(node, ctx);
  if (isSeq(node)) {
    checkTag(node, 'seq', ctx);
    return node.items.map((item) => toValue(item, ctx, depth + 1));
  }
  if (isMap(node)) {
    checkTag(node, 'map', ctx);
    const out: { [key: string]: YamlValue } = {};
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = toValue(pair.key, ctx, depth + 1);
      if (key !== null && typeof key === 'object') fail(ctx, pair.key as Node, 'a mapping key must be a scalar');
      const name = key === null ? 'None' : typeof key === 'boolean' ? (key ? 'True' : 'False') : String(key);
      // A YAML merge key (`<<: *defaults`) copies keys not set explicitly, as PyYAML does.
      if (name === '<<' && isScalar(pair.key) && pair.key.type === 'PLAIN') {
        const merged = toValue(pair.value, ctx, depth + 1);
        const sources = Array.isArray(merged) ? merged : [merged];
        for (const m of sources) {
          if (m === null || typeof m !== 'object' || Array.isArray(m)) fail(ctx, pair.value as Node, 'a merge key (<<) needs a mapping');
          for (const [k, v] of Object.entries(m)) if (!(k in out)) out[k] = v;
        }
        continue;
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
  fail(ctx, node as Node, 'unsupported YAML node');
}

function checkTag(node: Node, kind: 'seq' | 'map', ctx: Ctx): void {
  const tag = node.tag;
  if (tag !== undefined && tag !== TAG + kind) fail(ctx, node, `unsupported tag ${tag}`);
}

function scalarValue(node: Scalar, ctx: Ctx): YamlValue {
  const text = String(node.value);
  const tag = node.tag;
  if (tag !== undefined) {
    switch (tag) {
      case TAG + 'str':
        return text;
      case TAG + 'int':
        if (!/^[-+]?(?:0b[01_]+|0x[0-9a-fA-F_]+|[0-9][0-9_]*(?::[0-5]?[0-9])*)$/.test(text)) fail(ctx, node, `not an integer: '${text}'`);
        return constructInt(text);
      case TAG + 'float':
        return constructFloat(text);
      case TAG + 'bool':
        if (classifyPlainScalar(text) !== 'bool') fail(ctx, node, `not a boolean: '${text}'`);
        return constructBool(text);
      case TAG + 'null':
        return null;
      default:
        fail(ctx, node, `unsupported tag ${tag}`);
    }
  }
  if (node.type !== 'PLAIN') return text;
  // PyYAML resolves a plain `=` to the value tag and has no constructor for it.
  if (classifyPlainScalar(text) === 'value') fail(ctx, node, "could not determine a constructor for the tag 'tag:yaml.org,2002:value'");
  // Salt would load a date object for a timestamp; brine keeps the text, which every consumer wants.
  return resolvePlainScalar(text);
}
