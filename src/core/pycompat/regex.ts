import { TargetError } from '../errors';

/**
 * Python `re.match` for JavaScript: targets written for Salt use Python regex syntax, anchored at
 * the start only. The pattern is translated to an equivalent JS RegExp where the two differ:
 * `(?P<name>..)`, `(?P=name)`, `\A`, `\Z`, Python's `$` (also before a final newline), `.` (only
 * `\n` excluded), a `]` first in a set, `{,n}`, a literal `{`, leading global flags `(?imsx)`.
 * Constructs JS cannot express (atomic groups, conditionals, scoped flags) and Python syntax errors
 * (bad escapes, unbalanced parentheses) throw a TargetError with code BAD_TARGET.
 */
export function compilePythonRegex(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    cache.delete(pattern);
    cache.set(pattern, hit);
    if (hit instanceof TargetError) throw hit;
    return hit;
  }
  let result: RegExp | TargetError;
  try {
    const { source, flags } = translatePythonRegex(pattern);
    result = new RegExp(source, flags);
  } catch (err) {
    result =
      err instanceof TargetError
        ? err
        : new TargetError('BAD_TARGET', `invalid regular expression '${pattern}': ${(err as Error).message}`, {
            cause: err,
          });
  }
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(pattern, result);
  if (result instanceof TargetError) throw result;
  return result;
}

/** `bool(re.match(pattern, text))`. */
export function pythonReMatch(pattern: string, text: string): boolean {
  return compilePythonRegex(pattern).test(text);
}

const CACHE_LIMIT = 1024;
// Failures are cached too, so a bad expression matched against thousands of minions is parsed once.
const cache = new Map<string, RegExp | TargetError>();

const START = '(?<![\\s\\S])';
const END = '(?![\\s\\S])';

function bad(pattern: string, what: string, at: number): TargetError {
  return new TargetError('BAD_TARGET', `invalid regular expression '${pattern}': ${what} at position ${at}`);
}

/** The JS source and flags for a Python pattern, anchored at the start as `re.match` is. */
export function translatePythonRegex(pattern: string): { source: string; flags: string } {
  if (typeof pattern !== 'string') {
    throw new TargetError('BAD_TARGET', 'regular expression must be a string');
  }
  let i = 0;
  const py = new Set<string>();
  // Global flags must come first (Python 3.11 rejects them anywhere else).
  for (;;) {
    const m = /^\(\?([aiLmsux]+)\)/.exec(pattern.slice(i));
    if (m === null) break;
    for (const f of m[1]) py.add(f);
    i += m[0].length;
  }
  if (py.has('L')) throw bad(pattern, "flag 'L' is only valid with bytes patterns", 0);
  if (py.has('a') && py.has('u')) throw bad(pattern, "flags 'a' and 'u' are incompatible", 0);
  const verbose = py.has('x');
  const multiline = py.has('m');
  const dotall = py.has('s');
  const out: string[] = [];
  let groups = 0;
  const names = new Set<string>();
  let depth = 0;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i];
    const at = i;
    if (verbose && /\s/.test(c)) {
      i++;
      continue;
    }
    if (verbose && c === '#') {
      while (i < n && pattern[i] !== '\n') i++;
      continue;
    }
    if (c === '\\') {
      const { js, next, backref } = translateEscape(pattern, i, false);
      // Python only allows references to groups opened before this point.
      if (backref !== undefined && (backref === 0 || backref > groups)) throw bad(pattern, `invalid group reference ${backref}`, at);
      out.push(js);
      i = next;
    } else if (c === '[') {
      const { js, next } = translateClass(pattern, i);
      out.push(js);
      i = next;
    } else if (c === '(') {
      const rest = pattern.slice(i);
      let m: RegExpExecArray | null;
      if ((m = /^\(\?P<([^>]*)>/.exec(rest)) !== null) {
        if (!/^[A-Za-z_\u00c0-\uffff][\w\u00c0-\uffff]*$/.test(m[1])) throw bad(pattern, `bad group name '${m[1]}'`, at);
        if (names.has(m[1])) throw bad(pattern, `redefinition of group name '${m[1]}'`, at);
        names.add(m[1]);
        groups++;
        depth++;
        out.push(`(?<${m[1]}>`);
        i += m[0].length;
      } else if ((m = /^\(\?P=([^)]*)\)/.exec(rest)) !== null) {
        if (!names.has(m[1])) throw bad(pattern, `unknown group name '${m[1]}'`, at);
        out.push(`\\k<${m[1]}>`);
        i += m[0].length;
      } else if ((m = /^\(\?#[^)]*\)/.exec(rest)) !== null) {
        i += m[0].length;
      } else if ((m = /^\(\?(:|=|!|<=|<!)/.exec(rest)) !== null) {
        depth++;
        out.push(m[0]);
        i += m[0].length;
      } else if ((m = /^\(\?([aimsux]*)(?:-([imsx]+))?:/.exec(rest)) !== null) {
        // Scoped flags: only the no-op ones (a, u) can be expressed before V8 supports modifiers.
        if (/[imsx]/.test(m[1]) || m[2] !== undefined) {
          throw bad(pattern, `scoped inline flags '${m[0]}' are not supported`, at);
        }
        depth++;
        out.push('(?:');
        i += m[0].length;
      } else if (rest.startsWith('(?')) {
        if (/^\(\?[aiLmsux]+\)/.test(rest)) throw bad(pattern, 'global flags not at the start of the expression', at);
        throw bad(pattern, `unsupported group syntax '${rest.slice(0, 3)}'`, at);
      } else {
        groups++;
        depth++;
        out.push('(');
        i++;
      }
    } else if (c === ')') {
      if (depth === 0) throw bad(pattern, 'unbalanced parenthesis', at);
      depth--;
      out.push(')');
      i++;
    } else if (c === '{') {
      const m = /^\{(\d*)(?:(,)(\d*))?\}/.exec(pattern.slice(i));
      if (m === null || (m[1] === '' && m[2] === undefined)) {
        out.push('\\{');
        i++;
      } else {
        const lo = m[1] === '' ? '0' : m[1];
        const hi = m[2] === undefined ? lo : m[3];
        if (hi !== '' && Number(hi) < Number(lo)) throw bad(pattern, 'min repeat greater than max repeat', at);
        out.push(m[2] === undefined ? `{${lo}}` : `{${lo},${hi}}`);
        i += m[0].length;
      }
    } else if (c === '.') {
      out.push(dotall ? '[\\s\\S]' : '[^\\n]');
      i++;
    } else if (c === '^') {
      out.push(multiline ? `(?:${START}|(?<=\\n))` : START);
      i++;
    } else if (c === '$') {
      out.push(multiline ? `(?=\\n|${END})` : `(?=\\n?${END})`);
      i++;
    } else if (c === '}' || c === ']') {
      out.push('\\' + c);
      i++;
    } else {
      out.push(c);
      i++;
    }
  }
  if (depth !== 0) throw bad(pattern, 'missing ), unterminated subpattern', n);
  return { source: `${START}(?:${out.join('')})`, flags: py.has('i') ? 'i' : '' };
}

// Escapes with the same meaning in both engines (outside a class).
const SAME = new Set(['b', 'B', 'd', 'D', 's', 'S', 'w', 'W', 'f', 'n', 'r', 't', 'v']);

function translateEscape(pattern: string, i: number, inClass: boolean): { js: string; next: number; backref?: number } {
  const c = pattern[i + 1];
  if (c === undefined) throw bad(pattern, 'bad escape (end of pattern)', i);
  if (c === 'A' || c === 'Z') {
    if (inClass) throw bad(pattern, `bad escape \\${c}`, i);
    return { js: c === 'A' ? START : END, next: i + 2 };
  }
  if (c === 'B' && inClass) throw bad(pattern, 'bad escape \\B', i);
  if (SAME.has(c)) return { js: '\\' + c, next: i + 2 };
  if (c === 'a') return { js: '\\x07', next: i + 2 };
  if (c === 'x' || c === 'u' || c === 'U') {
    const len = c === 'x' ? 2 : c === 'u' ? 4 : 8;
    const hex = pattern.slice(i + 2, i + 2 + len);
    if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) throw bad(pattern, `incomplete escape \\${c}${hex}`, i);
    const cp = parseInt(hex, 16);
    if (cp > 0x10ffff) throw bad(pattern, `bad escape \\${c}${hex}`, i);
    return { js: literal(String.fromCodePoint(cp)), next: i + 2 + len };
  }
  if (/[0-9]/.test(c)) {
    const rest = pattern.slice(i + 1);
    // Python: in a set, or after \0, or as three octal digits, this is a character; otherwise one
    // or two digits name a group.
    const octal = inClass ? /^[0-7]{1,3}/.exec(rest) : c === '0' ? /^0[0-7]{0,2}/.exec(rest) : /^[0-3][0-7]{2}/.exec(rest);
    if (octal !== null) {
      const cp = parseInt(octal[0], 8);
      if (cp > 0o377) throw bad(pattern, `octal escape value \\${octal[0]} outside of range 0-0o377`, i);
      return { js: literal(String.fromCodePoint(cp)), next: i + 1 + octal[0].length };
    }
    if (inClass) throw bad(pattern, `bad escape \\${c}`, i);
    if (/^[4-7][0-7]{2}/.test(rest)) throw bad(pattern, `octal escape value \\${rest.slice(0, 3)} outside of range 0-0o377`, i);
    const ref = /^[0-9]{1,2}/.exec(rest)![0];
    return { js: `(?:\\${ref})`, next: i + 1 + ref.length, backref: Number(ref) };
  }
  if (/[A-Za-z]/.test(c)) throw bad(pattern, `bad escape \\${c}`, i);
  const cp = pattern.codePointAt(i + 1)!;
  const ch = String.fromCodePoint(cp);
  return { js: literal(ch), next: i + 1 + ch.length };
}

/** A Python character set starting at pattern[i] === '['. */
function translateClass(pattern: string, start: number): { js: string; next: number } {
  let i = start + 1;
  let js = '[';
  if (pattern[i] === '^') {
    js += '^';
    i++;
  }
  let first = true;
  for (;;) {
    if (i >= pattern.length) throw bad(pattern, 'unterminated character set', start);
    const c = pattern[i];
    if (c === ']' && !first) return { js: js + ']', next: i + 1 };
    first = false;
    if (c === '\\') {
      const { js: part, next } = translateEscape(pattern, i, true);
      // Python rejects a class shorthand (\d, \w, ...) at either end of a range.
      const shorthand = /^\\[dDsSwW]$/.test(part);
      if (shorthand && pattern[next] === '-' && next + 1 < pattern.length && pattern[next + 1] !== ']') {
        throw bad(pattern, `bad character range ${pattern.slice(i, next + 2)}`, i);
      }
      if (shorthand && js.endsWith('-') && !/\[\^?-$/.test(js)) {
        throw bad(pattern, `bad character range ending in ${pattern.slice(i, next)}`, i);
      }
      js += part;
      i = next;
    } else if (c === ']' || c === '[') {
      js += '\\' + c;
      i++;
    } else {
      js += c;
      i++;
    }
  }
}

/** One character as a JS regex atom, valid inside and outside a class. */
function literal(ch: string): string {
  if (/^[A-Za-z0-9_]$/.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  if (cp <= 0xffff) return `\\u${cp.toString(16).padStart(4, '0')}`;
  // Astral characters are two code units without the u flag; inside a set this is an
  // approximation (either surrogate), which only matters for sets of astral characters.
  return ch
    .split('')
    .map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .join('');
}

/** Python's `re` flag values (re.IGNORECASE, re.MULTILINE, re.DOTALL, re.VERBOSE). */
const PY_FLAGS: Record<string, [number, string]> = {
  IGNORECASE: [2, 'i'],
  I: [2, 'i'],
  MULTILINE: [8, 'm'],
  M: [8, 'm'],
  DOTALL: [16, 's'],
  S: [16, 's'],
  VERBOSE: [64, 'x'],
  X: [64, 'x'],
};

/**
 * Python's `re.compile(pattern, flags)` for searching (not anchored), global: `flags` is Python's
 * integer (8 = MULTILINE) or a list of names (`['IGNORECASE', 'MULTILINE']`), as Salt's file
 * functions take them.
 */
export function compilePythonSearch(pattern: string, flags: number | string | readonly string[] = 0): RegExp {
  let letters = '';
  if (typeof flags === 'number') {
    for (const [value, letter] of Object.values(PY_FLAGS)) if (flags & value && !letters.includes(letter)) letters += letter;
  } else {
    for (const name of typeof flags === 'string' ? [flags] : flags) {
      const known = PY_FLAGS[String(name).toUpperCase()];
      if (!known) throw new TargetError('BAD_TARGET', `Invalid re flag given: ${name}`);
      if (!letters.includes(known[1])) letters += known[1];
    }
  }
  const { source, flags: js } = translatePythonRegex(letters ? `(?${letters})${pattern}` : pattern);
  // translatePythonRegex anchors at the start as re.match does; a search is not anchored.
  return new RegExp(source.startsWith(START) ? source.slice(START.length) : source, `${js}g`);
}
