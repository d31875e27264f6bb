/**
 * Reads a method's parameter list from its source text, so plugin authors write plain methods and
 * the loader still knows names, defaults and rest parameters (Salt reads Python's argspec the same
 * way). Handles defaults with nested brackets and strings, rest parameters and destructuring.
 */

/** One parameter as written in the source. */
export interface SourceParam {
  /** The identifier, or null for a destructuring pattern. */
  name: string | null;
  rest: boolean;
  hasDefault: boolean;
  /** The default's source text (`42`, `'sh'`), when it has one. */
  defaultText?: string;
  /** For an object pattern `{ a, b: c = 1, ...more }`: its keys and whether it has a rest element. */
  objectPattern?: { keys: string[]; rest: boolean };
}

const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);

/** Index just past a string/template literal or comment starting at `i`, or `i` if none starts there. */
function skipLiteral(src: string, i: number): number {
  const c = src[i];
  if (c === '"' || c === "'" || c === '`') {
    let j = i + 1;
    while (j < src.length && src[j] !== c) j += src[j] === '\\' ? 2 : 1;
    return j + 1;
  }
  if (c === '/' && src[i + 1] === '/') {
    const end = src.indexOf('\n', i);
    return end === -1 ? src.length : end + 1;
  }
  if (c === '/' && src[i + 1] === '*') {
    const end = src.indexOf('*/', i + 2);
    return end === -1 ? src.length : end + 2;
  }
  return i;
}

/** Split `text` on `sep` characters that sit at nesting depth 0, outside literals. */
function splitTopLevel(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length;) {
    const skipped = skipLiteral(text, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    const c = text[i];
    if (OPEN.has(c)) depth++;
    else if (CLOSE.has(c)) depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    i++;
  }
  parts.push(text.slice(start));
  return parts;
}

/** The text between the first `(` and its matching `)`. */
function parameterText(src: string): string {
  const open = src.indexOf('(');
  if (open === -1) throw new Error('no parameter list found in function source');
  let depth = 0;
  for (let i = open; i < src.length;) {
    const skipped = skipLiteral(src, i);
    if (skipped !== i) {
      i = skipped;
      continue;
    }
    if (OPEN.has(src[i])) depth++;
    else if (CLOSE.has(src[i])) {
      depth--;
      if (depth === 0) return src.slice(open + 1, i);
    }
    i++;
  }
  throw new Error('unbalanced parameter list in function source');
}

function stripComments(text: string): string {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/\/\/[^\n]*/g, ' ')
    .trim();
}

function objectPatternKeys(pattern: string): { keys: string[]; rest: boolean } {
  const inner = pattern.trim().slice(1, -1);
  const keys: string[] = [];
  let rest = false;
  for (const raw of splitTopLevel(inner, ',')) {
    const part = stripComments(raw);
    if (!part) continue;
    if (part.startsWith('...')) {
      rest = true;
      continue;
    }
    const key = splitTopLevel(splitTopLevel(part, '=')[0], ':')[0]
      .trim()
      .replace(/^['"]|['"]$/g, '');
    keys.push(key);
  }
  return { keys, rest };
}

/**
 * Parameters of a function from its source.
 *
 * @example
 * readParams(function run(cmd, { cwd, env } = {}) {})
 * // [{ name: 'cmd', ... }, { name: null, hasDefault: true, objectPattern: { keys: ['cwd', 'env'], rest: false } }]
 */
export function readParams(fn: (...args: never[]) => unknown): SourceParam[] {
  const text = parameterText(Function.prototype.toString.call(fn));
  const params: SourceParam[] = [];
  for (const raw of splitTopLevel(text, ',')) {
    let part = stripComments(raw);
    if (!part) continue;
    const rest = part.startsWith('...');
    if (rest) part = part.slice(3).trim();
    const [target, ...defaults] = splitTopLevel(part, '=');
    const binding = target.trim();
    const hasDefault = defaults.length > 0;
    const defaultText = hasDefault ? defaults.join('=').trim() : undefined;
    if (binding.startsWith('{')) {
      params.push({ name: null, rest, hasDefault, defaultText, objectPattern: objectPatternKeys(binding) });
    } else if (binding.startsWith('[')) {
      params.push({ name: null, rest, hasDefault, defaultText });
    } else {
      params.push({ name: binding, rest, hasDefault, defaultText });
    }
  }
  return params;
}
