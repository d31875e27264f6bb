/**
 * Salt's `json` outputter: Python's json.dumps(data, indent=4, ensure_ascii=False, default=repr)
 * (salt/output/json_out.py through salt.utils.json.dumps). Item separator `,` plus newline when
 * indenting, `, ` and `: ` on one line; floats as Python prints them; bytes as their repr.
 */
import { compareCodePoints, ReprError, entriesOf, isBytes, isMapping, pyBytesRepr, pyFloat, pyNumber, unprintable } from './repr';
import { PyFloat } from './float';

/** `output_indent`: a number of spaces, null or a negative number for one line, 'pretty' for 4 and sorted keys. */
export type JsonIndent = number | null | 'pretty';

export function formatJson(data: unknown, indent: JsonIndent = 4): string {
  let width: number | null;
  let sortKeys = false;
  if (indent === 'pretty') {
    width = 4;
    sortKeys = true;
  } else if (indent === null || indent < 0) width = null;
  else if (Number.isInteger(indent)) width = indent;
  else throw new ReprError('BAD_OUTPUT_INDENT', `output indent must be an integer, null or 'pretty', got ${String(indent)}`);
  return encode(data, width, sortKeys, 0);
}

/**
 * Python's json.dumps(value, indent=..., sort_keys=..., ensure_ascii=...) (what Salt's Jinja
 * filters `json` and `tojson` call). `indent` null = one line with `, ` and `: `.
 */
export function pyJsonDumps(value: unknown, options: { indent?: number | null; sortKeys?: boolean; ensureAscii?: boolean } = {}): string {
  const text = encode(value, options.indent ?? null, options.sortKeys ?? false, 0);
  if (options.ensureAscii === false) return text;
  return text.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Python's json string encoding with ensure_ascii=False. */
export function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function jsonNumber(x: number | bigint): string {
  if (typeof x === 'number') {
    if (Number.isNaN(x)) return 'NaN';
    if (x === Infinity) return 'Infinity';
    if (x === -Infinity) return '-Infinity';
    return Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER && !Object.is(x, -0) ? String(x) : pyFloat(x);
  }
  return pyNumber(x);
}

function encode(value: unknown, width: number | null, sortKeys: boolean, level: number): string {
  if (level > 500) throw unprintable(value);
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number' || typeof value === 'bigint') return jsonNumber(value);
  if (value instanceof PyFloat) return pyFloat(value.value);
  if (typeof value === 'string') return jsonString(value);
  // default=repr: bytes become the text of their Python repr.
  if (isBytes(value)) return jsonString(pyBytesRepr(value));
  let parts: string[];
  let open: string;
  let close: string;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    parts = value.map((v) => encode(v, width, sortKeys, level + 1));
    [open, close] = ['[', ']'];
  } else if (isMapping(value)) {
    const items = entriesOf(value);
    if (items.length === 0) return '{}';
    if (sortKeys) items.sort((a, b) => compareCodePoints(a[0], b[0]));
    parts = items.map(([k, v]) => `${jsonString(k)}: ${encode(v, width, sortKeys, level + 1)}`);
    [open, close] = ['{', '}'];
  } else {
    throw unprintable(value);
  }
  if (width === null) return open + parts.join(', ') + close;
  const inner = '\n' + ' '.repeat(width * (level + 1));
  return open + inner + parts.join(',' + inner) + '\n' + ' '.repeat(width * level) + close;
}
