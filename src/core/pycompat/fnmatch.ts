import { TargetError } from '../errors';

/**
 * Python's `fnmatch.fnmatchcase`, which Salt uses for glob targets and for `salt-key` patterns.
 *
 * Case-sensitive; `*` any run (also across `/` and dots), `?` one character, `[seq]`, `[!seq]`,
 * ranges `a-z`; a `]` first in a set is literal; an unclosed `[` is a literal `[`; every other
 * character, including backslash and regex metacharacters, is literal.
 */
export function fnmatch(pattern: string, name: string): boolean {
  if (typeof pattern !== 'string') {
    throw new TargetError('BAD_TARGET', `glob pattern must be a string, got ${describe(pattern)}`);
  }
  if (typeof name !== 'string') {
    throw new TargetError('BAD_TARGET', `name matched against glob '${pattern}' must be a string, got ${describe(name)}`);
  }
  return compileGlob(pattern).test(name);
}

/** Whether a string contains glob metacharacters (Salt's `salt-key` uses this to choose exact vs glob). */
export function hasGlobChars(pattern: string): boolean {
  return /[*?[]/.test(pattern);
}

// The master matches thousands of ids against the same few patterns; compile each one once.
const CACHE_LIMIT = 2048;
const cache = new Map<string, RegExp>();

/** Longest glob compiled: far beyond any id pattern, short enough to compile in microseconds. */
export const MAX_GLOB_LENGTH = 8192;

/** The anchored RegExp for a glob pattern, from a bounded LRU cache. */
export function compileGlob(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit !== undefined) {
    // Re-insert so the Map's insertion order doubles as recency order.
    cache.delete(pattern);
    cache.set(pattern, hit);
    return hit;
  }
  if (pattern.length > MAX_GLOB_LENGTH) {
    // Compiling costs seconds of the event loop at ~100k characters, and V8 refuses some sooner.
    throw new TargetError('BAD_TARGET', `glob pattern of ${pattern.length} characters is too large to match (at most ${MAX_GLOB_LENGTH})`, {
      hint: 'use a shorter glob, or a list target (-L) for many ids',
    });
  }
  let re: RegExp;
  try {
    re = new RegExp(translate(pattern), 'su');
  } catch (cause) {
    // V8 refuses regexes past its size limits (a glob of ~100k characters): a bad target, not a crash.
    throw new TargetError(
      'BAD_TARGET',
      `glob pattern of ${pattern.length} characters is too large to match: ${(cause as Error).message.slice(0, 80)}`,
      {
        cause,
        hint: 'use a shorter glob, or a list target (-L) for many ids',
      },
    );
  }
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(pattern, re);
  return re;
}

const STAR = Symbol('star');

/**
 * Translate a glob to a JS regex source, following CPython's `fnmatch._translate` so that sets and
 * ranges behave the same, including its removal of empty ranges (`[z-a]` matches nothing).
 */
export function translate(pat: string): string {
  // Work on code points so astral characters are one "character" as in Python.
  const p = Array.from(pat);
  const n = p.length;
  const parts: Array<string | typeof STAR> = [];
  let i = 0;
  while (i < n) {
    const c = p[i++];
    if (c === '*') {
      if (parts.length === 0 || parts[parts.length - 1] !== STAR) parts.push(STAR);
    } else if (c === '?') {
      parts.push('.');
    } else if (c === '[') {
      let j = i;
      if (j < n && p[j] === '!') j++;
      if (j < n && p[j] === ']') j++;
      while (j < n && p[j] !== ']') j++;
      if (j >= n) {
        parts.push(escapeChar('['));
      } else {
        parts.push(translateSet(p, i, j));
        i = j + 1;
      }
    } else {
      parts.push(escapeChar(c));
    }
  }
  return '^' + joinStars(parts) + '$';
}

/** The regex for the set body p[start, end) (between `[` and `]`). */
function translateSet(p: string[], start: number, end: number): string {
  const body = p.slice(start, end);
  let chunks: string[][];
  if (!body.includes('-')) {
    chunks = [body];
  } else {
    // Split at hyphens that form ranges, as CPython does: after a range `a-c`, the character
    // following `c` cannot start another range's hyphen search.
    chunks = [];
    let i = start;
    let k = p[start] === '!' ? start + 2 : start + 1;
    for (;;) {
      k = indexOfHyphen(p, k, end);
      if (k < 0) break;
      chunks.push(p.slice(i, k));
      i = k + 1;
      k = k + 3;
    }
    const last = p.slice(i, end);
    if (last.length > 0) chunks.push(last);
    else chunks[chunks.length - 1].push('-');
    // Remove empty ranges (lo > hi), which are invalid in a regex.
    for (let m = chunks.length - 1; m > 0; m--) {
      const prev = chunks[m - 1];
      const cur = chunks[m];
      if (prev.length > 0 && cur.length > 0 && prev[prev.length - 1].codePointAt(0)! > cur[0].codePointAt(0)!) {
        chunks[m - 1] = prev.slice(0, -1).concat(cur.slice(1));
        chunks.splice(m, 1);
      }
    }
  }
  let negate = false;
  if (chunks.length > 0 && chunks[0][0] === '!') {
    negate = true;
    chunks[0] = chunks[0].slice(1);
  }
  const total = chunks.reduce((sum, ch) => sum + ch.length, 0);
  if (total === 0 && chunks.length <= 1) {
    // `[z-a]` matches nothing; `[!z-a]` matches any character.
    return negate ? '.' : '(?!)';
  }
  const inner = chunks.map((ch) => ch.map(escapeChar).join('')).join('-');
  return `[${negate ? '^' : ''}${inner}]`;
}

function indexOfHyphen(p: string[], from: number, end: number): number {
  for (let k = from; k < end; k++) if (p[k] === '-') return k;
  return -1;
}

/**
 * Join fixed parts around stars. Like CPython, each middle `*fixed` matches lazily and atomically
 * (emulated with a lookahead and a backreference) so that patterns with many stars cannot backtrack
 * exponentially.
 */
function joinStars(parts: Array<string | typeof STAR>): string {
  const segments: string[] = [];
  let current = '';
  let stars = 0;
  for (const part of parts) {
    if (part === STAR) {
      segments.push(current);
      current = '';
      stars++;
    } else {
      current += part;
    }
  }
  segments.push(current);
  if (stars === 0) return segments[0];
  let out = segments[0];
  let group = 0;
  for (let s = 1; s < segments.length - 1; s++) {
    group++;
    out += `(?=(.*?${segments[s]}))\\${group}`;
  }
  return out + '.*' + segments[segments.length - 1];
}

/** Escape one code point for use both outside and inside a character class (unicode mode). */
function escapeChar(c: string): string {
  if (/^[A-Za-z0-9_]$/.test(c)) return c;
  return `\\u{${c.codePointAt(0)!.toString(16)}}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}
