/**
 * Jinja's number literals and arithmetic, which nunjucks lacks or does the JavaScript way:
 * exponents (`1e-05`, `2.5e+20`), `_` separators (`1_000`), `0x`/`0o`/`0b` integers, floats
 * kept apart from ints (`{{ 1.0 }}` prints `1.0`, `{{ 4 / 2 }}` prints `2.0`), and `- / // **`
 * with Python's results and errors (python-numbers.ts). As in jinja-statements.ts, the lexer
 * only accepts more than before; the compiled meaning changes only in brine's environments.
 */
import nunjucks from 'nunjucks';
import { pyFloatOf } from '../../pycompat';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const lexer = nj.lexer;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;
const Tokenizer = Object.getPrototypeOf(lexer.lex('')).constructor;

// Jinja's float_re and integer_re (jinja2/lexer.py).
const NUMBER =
  /(?:0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0[xX](?:_?[\da-fA-F])+|(\d+(?:_\d+)*)((?:\.\d+(?:_\d+)*)?[eE][+-]?\d+(?:_\d+)*|\.\d+(?:_\d+)*)?)(?![\w])/y;

let installed = false;

/** Install the lexer, parser and compiler additions (once per process). */
export function installJinjaNumbers(isBrine: (compiler: AnyNode) => boolean): void {
  if (installed) return;
  installed = true;

  const nextToken = Tokenizer.prototype.nextToken;
  Tokenizer.prototype.nextToken = function (this: AnyNode) {
    const c = this.in_code ? this.str.charCodeAt(this.index) : NaN;
    // A digit after '.' is an attribute (`x.0.1` is x[0][1]), as Jinja's (?<!\.) says.
    if (c >= 48 && c <= 57 && this.str[this.index - 1] !== '.') {
      NUMBER.lastIndex = this.index;
      const m = NUMBER.exec(this.str);
      if (m) {
        const { lineno, colno } = this;
        this.forwardN(m[0].length);
        const text = m[0].replace(/_/g, '');
        if (m[2] !== undefined) return { type: lexer.TOKEN_FLOAT, value: text, lineno, colno };
        const value = m[1] !== undefined ? text : String(Number(text.toLowerCase().replace(/^0o/, '0o')));
        return { type: lexer.TOKEN_INT, value, lineno, colno };
      }
    }
    return nextToken.call(this);
  };

  // A float literal is marked so that a whole one compiles to a PyFloat (`1.0` is not `1`).
  const parsePrimary = Parser.prototype.parsePrimary;
  Parser.prototype.parsePrimary = function (this: AnyNode, noPostfix?: boolean) {
    const tok = this.peekToken();
    const node = parsePrimary.call(this, noPostfix);
    if (tok?.type === lexer.TOKEN_FLOAT && node instanceof nodes.Literal && typeof node.value === 'number') node.brineFloat = true;
    return node;
  };

  const compileLiteral = Compiler.prototype.compileLiteral;
  Compiler.prototype.compileLiteral = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (node.brineFloat && isBrine(this) && Number.isInteger(node.value)) {
      this._emit(`runtime.brineFloat(${Object.is(node.value, -0) ? '-0' : node.value})`);
      return;
    }
    compileLiteral.call(this, node, frame);
  };

  runtime.brineFloat = pyFloatOf;
}

/** The arithmetic operators the tree rewrite (nunjucks-compat.ts) sends to Python's semantics. */
export const ARITHMETIC: Record<string, string> = { Sub: '-', Div: '/', FloorDiv: '//', Pow: '**' };

/** `-1` and `-1.5` stay literals; any other negation is computed at run time. */
export function foldNegation(node: AnyNode): AnyNode | undefined {
  const target = node.target;
  if (target instanceof nodes.Literal && typeof target.value === 'number') {
    const lit = new nodes.Literal(node.lineno, node.colno, -target.value);
    lit.brineFloat = target.brineFloat;
    return lit;
  }
  return undefined;
}
