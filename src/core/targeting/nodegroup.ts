/**
 * Nodegroup expansion, after Salt's `salt.utils.minions.nodegroup_comp`: a nodegroup is a compound
 * string or a list of words; `N@other` inside it is expanded recursively; a definition with no
 * operators, no `*` and no `X@` prefix is a list of ids (`L@a,b`), or `E@a,b` when a word has
 * regex characters. An unknown nodegroup or a loop expands to nothing, as in Salt; the reason is
 * recorded in `problems` so `checkTarget` can report it.
 *
 * One deliberate difference: every multi-word expansion is wrapped in parentheses. Salt leaves a
 * top-level expansion bare, so `N@g and x` with `g: 'a or b'` would read `a or b and x`; brine
 * publishes the expanded expression, so a Salt minion evaluates the same parenthesised words.
 */

export type Nodegroups = Record<string, string | string[]>;

export const OPERATORS: ReadonlySet<string> = new Set(['and', 'or', 'not', '(', ')']);

const REGEX_CHARS = ['(', '[', '{', '\\', '?', '}', ']', ')'];

/** The words a nodegroup stands for; problems found on the way are appended to `problems`. */
export function expandNodegroup(name: string, nodegroups: Nodegroups | undefined, problems: string[]): string[] {
  return expand(name, nodegroups ?? {}, [], problems);
}

function expand(name: string, nodegroups: Nodegroups, chain: string[], problems: string[]): string[] {
  if (chain.includes(name)) {
    problems.push(`nodegroup '${name}' includes itself (${[...chain, name].join(' -> ')})`);
    return [];
  }
  if (!Object.prototype.hasOwnProperty.call(nodegroups, name)) {
    problems.push(`unknown nodegroup '${name}'`);
    return [];
  }
  const value: unknown = nodegroups[name];
  let words: string[];
  if (typeof value === 'string') {
    words = value.split(/\s+/).filter((w) => w !== '');
  } else if (Array.isArray(value)) {
    words = value.map((w) => (typeof w === 'string' ? w : String(w)));
  } else {
    problems.push(`nodegroup '${name}' is neither a string nor a list`);
    return [];
  }
  const joined = asListOrRegex(words);
  if (joined !== undefined) return [joined];
  const out: string[] = [];
  for (const word of words) {
    if (!OPERATORS.has(word) && word.length >= 3 && word.startsWith('N@')) {
      out.push(...expand(word.slice(2), nodegroups, [...chain, name], problems));
    } else {
      out.push(word);
    }
  }
  if (out.length === 0) return [];
  return out.length === 1 ? out : ['(', ...out, ')'];
}

/** Salt's `_nodegroup_regex`: plain words without operators become one L@ (or E@) word. */
function asListOrRegex(words: string[]): string | undefined {
  if (words.length === 0 || words.some((w) => OPERATORS.has(w))) return undefined;
  if (words.some((w) => w.includes('*') || /^[A-Z]@/.test(w))) return undefined;
  const regexy = words.some((w) => REGEX_CHARS.some((c) => w.includes(c)));
  return (regexy ? 'E@' : 'L@') + words.join(',');
}
