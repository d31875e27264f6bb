import { compileGlob } from '../pycompat/fnmatch';
import { compilePythonRegex } from '../pycompat/regex';
import { isMapping } from '../pycompat/repr';
import { parseIpTarget, ipTargetMatches } from './ipcidr';
import { subdictMatch } from './subdict';
import { TargetError } from '../errors';

/** What a matcher needs to know of a minion. */
export interface MinionData {
  id: string;
  grains?: Record<string, unknown>;
  pillar?: Record<string, unknown>;
}

/**
 * A match result: `undefined` means the answer depends on grains or pillar this minion did not
 * provide (the master then includes it and lets the minion decide).
 */
export type Tri = boolean | undefined;

export type Matcher = (minion: MinionData) => Tri;

export type AtomEngine = 'glob' | 'pcre' | 'list' | 'grain' | 'grain_pcre' | 'pillar' | 'pillar_pcre' | 'ipcidr';

/**
 * A compiled single-engine target. `problem` says why the expression is invalid; the matcher then
 * answers false (a Salt minion matches nothing on such input), and `fatal` means Salt's compound
 * matcher would fail as a whole rather than count this part as false.
 */
export interface Atom {
  match: Matcher;
  needsData: boolean;
  problem?: string;
  fatal?: boolean;
}

const NEVER: Matcher = () => false;

/** Build the matcher for one engine; never throws. */
export function buildAtom(engine: AtomEngine, pattern: unknown, delimiter: string): Atom {
  switch (engine) {
    case 'glob': {
      if (typeof pattern !== 'string') return { match: NEVER, needsData: false, problem: 'a glob target must be a string' };
      const re = compileGlob(pattern);
      return { match: (m) => typeof m.id === 'string' && re.test(m.id), needsData: false };
    }
    case 'pcre':
      return pcreAtom(pattern);
    case 'list':
      return listAtom(pattern);
    case 'grain':
    case 'grain_pcre':
    case 'pillar':
    case 'pillar_pcre':
      return dataAtom(engine, pattern, delimiter);
    case 'ipcidr':
      return ipcidrAtom(pattern);
  }
}

function pcreAtom(pattern: unknown): Atom {
  if (typeof pattern !== 'string') return { match: NEVER, needsData: false, problem: 'a pcre target must be a string' };
  try {
    const re = compilePythonRegex(pattern);
    return { match: (m) => typeof m.id === 'string' && re.test(m.id), needsData: false };
  } catch (err) {
    // In Salt the re.error escapes the pcre matcher, failing a whole compound expression.
    return { match: NEVER, needsData: false, problem: (err as TargetError).message, fatal: true };
  }
}

function listAtom(pattern: unknown): Atom {
  if (Array.isArray(pattern)) {
    const ids = new Set(pattern.filter((x): x is string => typeof x === 'string'));
    return { match: (m) => ids.has(m.id), needsData: false };
  }
  if (typeof pattern !== 'string') {
    return { match: NEVER, needsData: false, problem: 'a list target must be a comma-separated string or a list' };
  }
  // Salt's list_match compares text, without trimming: 'a, b' does not list 'b'.
  return {
    match: (m) => m.id === pattern || pattern.includes(`,${m.id},`) || pattern.startsWith(`${m.id},`) || pattern.endsWith(`,${m.id}`),
    needsData: false,
  };
}

function dataAtom(engine: 'grain' | 'grain_pcre' | 'pillar' | 'pillar_pcre', pattern: unknown, delimiter: string): Atom {
  const what = engine.startsWith('grain') ? 'grain' : 'pillar';
  const regex = engine.endsWith('_pcre');
  if (typeof pattern !== 'string') return { match: NEVER, needsData: false, problem: `a ${engine} target must be a string` };
  if (delimiter === '') return { match: NEVER, needsData: false, problem: 'the delimiter must not be empty' };
  if (!pattern.includes(delimiter)) {
    return {
      match: NEVER,
      needsData: false,
      problem: `'${pattern}' has no '${delimiter}' between the ${what} and the pattern (expected ${what}${delimiter}pattern)`,
    };
  }
  let problem: string | undefined;
  if (regex) problem = regexProblem(pattern, delimiter);
  const key = what === 'grain' ? 'grains' : 'pillar';
  return {
    match: (m) => {
      const data = m[key];
      if (data === undefined) return undefined;
      return subdictMatch(data, pattern, delimiter, regex);
    },
    needsData: true,
    problem,
  };
}

/** A regex data target is bad when no split point leaves a valid (lowered) regex. */
function regexProblem(pattern: string, delimiter: string): string | undefined {
  const parts = pattern.split(delimiter);
  let first: string | undefined;
  for (let idx = 1; idx < parts.length; idx++) {
    try {
      compilePythonRegex(parts.slice(idx).join(delimiter).toLowerCase());
      return undefined;
    } catch (err) {
      first ??= (err as TargetError).message;
    }
  }
  return first;
}

function ipcidrAtom(pattern: unknown): Atom {
  if (typeof pattern !== 'string') return { match: NEVER, needsData: false, problem: 'an ipcidr target must be a string' };
  const parsed = parseIpTarget(pattern);
  if ('error' in parsed) return { match: NEVER, needsData: false, problem: `invalid IP/CIDR target: ${parsed.error}` };
  return {
    match: (m) =>
      m.grains === undefined ? undefined : isMapping(m.grains) && ipTargetMatches(parsed, m.grains as Record<string, unknown>),
    needsData: true,
  };
}
