import { buildAtom, type AtomEngine, type Matcher, type Tri } from './atoms';
import { expandNodegroup, OPERATORS, type Nodegroups } from './nodegroup';

/**
 * The compound matcher (`-C`), after Salt's `compound_match.py`: whitespace-separated words, each
 * an operator (`and`, `or`, `not`, `(`, `)`), an engine word (`G@os:Debian`, `G%@a%b`, `L@a,b`,
 * `E@re`, `P@`, `I@`, `J@`, `S@`, `N@group`) or a bare glob. Salt rewrites the words into Python
 * and calls eval; here a small parser builds the same expression (`not` binds tighter than `and`,
 * `and` tighter than `or`; a `not` right after an operand means `and not`).
 */
export interface CompiledCompound {
  match: Matcher;
  needsData: boolean;
  /** The first thing wrong, with where it is; the expression then matches nothing. */
  problem?: string;
  /** The words after nodegroup expansion, ready to publish as a compound target. */
  words: string[];
}

// Salt's TARGET_REX: an engine letter, for G/P/I/J an optional one-character delimiter, then '@'.
const TARGET_REX = /^(?:([GPIJLNSER])((?<=[GPIJ]).)?@)?(.+)$/s;

const ENGINES: Record<string, AtomEngine | undefined> = {
  G: 'grain',
  P: 'grain_pcre',
  I: 'pillar',
  J: 'pillar_pcre',
  L: 'list',
  S: 'ipcidr',
  E: 'pcre',
};

interface Token {
  kind: 'and' | 'or' | 'not' | '(' | ')' | 'operand';
  word: string;
  /** Where the word came from, for messages: "word 3" or "word 3 (nodegroup 'web')". */
  where: string;
  match?: Matcher;
}

type Node = { kind: 'operand'; match: Matcher } | { kind: 'not'; arg: Node } | { kind: 'and' | 'or'; args: Node[] };

class ParseError extends Error {}

export function compileCompound(tgt: unknown, nodegroups: Nodegroups | undefined): CompiledCompound {
  const never: Matcher = () => false;
  let words: string[];
  if (typeof tgt === 'string') words = tgt.split(/\s+/).filter((w) => w !== '');
  else if (Array.isArray(tgt) && tgt.every((w) => typeof w === 'string')) words = tgt as string[];
  else return { match: never, needsData: false, problem: 'a compound target must be a string or a list of words', words: [] };

  const problems: string[] = [];
  let fatal = false;
  let needsData = false;
  const tokens: Token[] = [];
  const expanded: string[] = [];
  words.forEach((word, index) => {
    const info = TARGET_REX.exec(word);
    if (info !== null && info[1] === 'N' && !OPERATORS.has(word)) {
      const found: string[] = [];
      const inner = expandNodegroup(info[3], nodegroups, found);
      for (const p of found) problems.push(`${p} at word ${index + 1}`);
      for (const w of inner) {
        expanded.push(w);
        tokens.push(makeToken(w, `word ${index + 1} (nodegroup '${info[3]}')`));
      }
      return;
    }
    expanded.push(word);
    tokens.push(makeToken(word, `word ${index + 1}`));
  });

  function makeToken(word: string, where: string): Token {
    if (OPERATORS.has(word)) return { kind: word as Token['kind'], word, where };
    const info = TARGET_REX.exec(word);
    const letter = info?.[1];
    if (letter === undefined) {
      if (/^[GPIJLNSER].?@$/.test(word)) problems.push(`'${word}' at ${where} has no pattern after '@'`);
      return { kind: 'operand', word, where, match: buildAtom('glob', word, ':').match };
    }
    const engine = ENGINES[letter];
    if (engine === undefined) {
      // R@ (range) needs seco.range, N@ inside a nodegroup was already expanded: Salt fails the whole match.
      problems.push(`unsupported target engine '${letter}@' in '${word}' at ${where}`);
      fatal = true;
      return { kind: 'operand', word, where, match: never };
    }
    const atom = buildAtom(engine, info![3], info![2] ?? ':');
    if (atom.problem !== undefined) problems.push(`${atom.problem} in '${word}' at ${where}`);
    if (atom.fatal) fatal = true;
    needsData ||= atom.needsData;
    return { kind: 'operand', word, where, match: atom.match };
  }

  let tree: Node | undefined;
  try {
    tree = parse(tokens);
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    problems.push(err.message);
    fatal = true;
  }
  const problem = problems[0];
  if (fatal || tree === undefined) return { match: never, needsData, problem, words: expanded };
  const root = tree;
  return { match: (m) => evaluate(root, m), needsData, problem, words: expanded };
}

function parse(tokens: Token[]): Node {
  let pos = 0;
  const describe = (t: Token) => `'${t.word}' at ${t.where}`;
  const peek = (): Token | undefined => tokens[pos];

  if (tokens.length === 0) throw new ParseError('the expression is empty');

  // Salt turns `x not y` into `x and not y`, but `not not` into `not and not`, a syntax error.
  for (let i = 1; i < tokens.length; i++) {
    if (tokens[i].kind === 'not' && tokens[i - 1].kind === 'not') {
      throw new ParseError(`${describe(tokens[i])} cannot follow 'not'`);
    }
  }

  function parseOr(): Node {
    const args = [parseAnd()];
    while (peek()?.kind === 'or') {
      pos++;
      args.push(parseAnd());
    }
    return args.length === 1 ? args[0] : { kind: 'or', args };
  }

  function parseAnd(): Node {
    const args = [parseNot()];
    for (;;) {
      const t = peek();
      if (t?.kind === 'and') {
        pos++;
        args.push(parseNot());
      } else if (t?.kind === 'not') {
        // An implicit 'and' before a 'not' that follows an operand or ')'.
        args.push(parseNot());
      } else {
        break;
      }
    }
    return args.length === 1 ? args[0] : { kind: 'and', args };
  }

  function parseNot(): Node {
    if (peek()?.kind === 'not') {
      pos++;
      return { kind: 'not', arg: parseNot() };
    }
    return parsePrimary();
  }

  function parsePrimary(): Node {
    const t = peek();
    if (t === undefined) {
      const last = tokens[tokens.length - 1];
      throw new ParseError(`the expression ends after ${describe(last)}, a target must follow`);
    }
    if (t.kind === 'operand') {
      pos++;
      return { kind: 'operand', match: t.match! };
    }
    if (t.kind === '(') {
      pos++;
      if (peek()?.kind === ')') throw new ParseError(`empty parentheses at ${t.where}`);
      const inner = parseOr();
      const close = peek();
      if (close?.kind !== ')') {
        if (close === undefined) throw new ParseError(`'(' at ${t.where} is never closed`);
        throw new ParseError(`${describe(close)} must be 'and', 'or' or ')'`);
      }
      pos++;
      return inner;
    }
    throw new ParseError(`${describe(t)} must follow a target`);
  }

  const tree = parseOr();
  const rest = peek();
  if (rest !== undefined) {
    if (rest.kind === ')') throw new ParseError(`${describe(rest)} has no matching '('`);
    throw new ParseError(`${describe(rest)} must be joined to what precedes it by 'and' or 'or'`);
  }
  return tree;
}

/** Three-valued (Kleene) evaluation: unknown parts decide only when the known parts do not. */
function evaluate(node: Node, m: Parameters<Matcher>[0]): Tri {
  switch (node.kind) {
    case 'operand':
      return node.match(m);
    case 'not': {
      const v = evaluate(node.arg, m);
      return v === undefined ? undefined : !v;
    }
    case 'and': {
      let unknown = false;
      for (const a of node.args) {
        const v = evaluate(a, m);
        if (v === false) return false;
        if (v === undefined) unknown = true;
      }
      return unknown ? undefined : true;
    }
    case 'or': {
      let unknown = false;
      for (const a of node.args) {
        const v = evaluate(a, m);
        if (v === true) return true;
        if (v === undefined) unknown = true;
      }
      return unknown ? undefined : false;
    }
  }
}
