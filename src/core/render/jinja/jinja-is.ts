/**
 * Jinja's tests as Jinja parses them: `x is divisibleby 3` and `x is sameas none` (one argument
 * without parentheses), `x is divisibleby(3)`, dotted test names, keyword arguments, and
 * Python truth of the result. nunjucks parsed the part after `is` as a comparison, so an argument
 * without parentheses was a syntax error.
 */
import nunjucks from 'nunjucks';
import { TemplateRuntimeError, truthy } from './python-values';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const lexer = nj.lexer;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;

// Tokens that start the one argument of a test written without parentheses (Jinja's list).
const ARG_START = new Set([
  lexer.TOKEN_SYMBOL,
  lexer.TOKEN_STRING,
  lexer.TOKEN_INT,
  lexer.TOKEN_FLOAT,
  lexer.TOKEN_BOOLEAN,
  lexer.TOKEN_NONE,
  lexer.TOKEN_LEFT_PAREN,
  lexer.TOKEN_LEFT_BRACKET,
  lexer.TOKEN_LEFT_CURLY,
]);
const NOT_ARG = new Set(['else', 'or', 'and', 'if', 'is', 'in', 'not', 'recursive']);

let installed = false;

/** Install the parser and compiler changes (once per process). */
export function installJinjaIs(isBrine: (compiler: AnyNode) => boolean): void {
  if (installed) return;
  installed = true;

  Parser.prototype.parseIs = function (this: AnyNode) {
    const node = this.parseCompare();
    const isTok = this.peekToken();
    if (!this.skipSymbol('is')) return node;
    const not = this.skipSymbol('not');
    const nameTok = this.nextToken();
    if (!nameTok || ![lexer.TOKEN_SYMBOL, lexer.TOKEN_NONE, lexer.TOKEN_BOOLEAN].includes(nameTok.type))
      this.fail(`expected a test name after 'is', got '${nameTok?.value ?? 'end of template'}'`, isTok.lineno, isTok.colno);
    let name: string = nameTok.value;
    for (;;) {
      const dot = this.peekToken();
      if (dot?.type !== lexer.TOKEN_OPERATOR || dot.value !== '.') break;
      this.nextToken();
      name += '.' + this.nextToken().value;
    }
    const next = this.peekToken();
    let args: AnyNode;
    if (next?.type === lexer.TOKEN_LEFT_PAREN) {
      args = this.parseSignature();
    } else if (next && ARG_START.has(next.type) && !(next.type === lexer.TOKEN_SYMBOL && NOT_ARG.has(next.value))) {
      args = new nodes.NodeList(next.lineno, next.colno, [this.parsePrimary()]);
    }
    const test = new nodes.FunCall(nameTok.lineno, nameTok.colno, new nodes.Symbol(nameTok.lineno, nameTok.colno, name), args);
    if (!args) test.args = new nodes.NodeList(nameTok.lineno, nameTok.colno, []);
    const is = new nodes.Is(isTok.lineno, isTok.colno, node, test);
    return not ? new nodes.Not(isTok.lineno, isTok.colno, is) : is;
  };

  const compileIs = Compiler.prototype.compileIs;
  Compiler.prototype.compileIs = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (!isBrine(this)) return compileIs.call(this, node, frame);
    const name = node.right.name.value;
    this._emit(`runtime.brineTest(env, ${JSON.stringify(name)}, ${node.lineno + 1}, `);
    this._compileAggregate(new nodes.NodeList(node.lineno, node.colno, [node.left, ...node.right.args.children]), frame, '[', ']');
    this._emit(')');
  };

  runtime.brineTest = (env: AnyNode, name: string, line: number, args: unknown[]) => {
    const test = env.tests[name];
    if (!test) throw new TemplateRuntimeError(`No test named '${name}'.`, line);
    return truthy(test.apply(null, args), line);
  };
}
