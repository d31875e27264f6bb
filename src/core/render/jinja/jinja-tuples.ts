/**
 * Jinja's tuples and the syntax around them, which nunjucks lacks: tuple literals (`(1, 2)`,
 * `(1,)`, `()`; nunjucks compiled `(1, 2)` as JavaScript's comma operator, giving 2), implicit
 * tuples after `set` (`{% set x = 1, 2 %}`), unpacking (`{% set a, b = pair %}`; nunjucks gave
 * both names the whole value), dict keys that are expressions (`{1: 'a'}`, `{name: v}` with
 * `name` a variable, as in Jinja), and `}}` closing a dict inside a `{% %}` tag
 * (`{% set d = {'a': {'b': 1}} %}`; nunjucks' lexer ended the tag there). Tuples are arrays
 * marked by pycompat's pyTuple, so they index and iterate as lists do and print as Python prints
 * tuples. As in jinja-statements.ts, each addition accepts only what nunjucks refused (or
 * misread) before.
 */
import nunjucks from 'nunjucks';
import { pyText, TemplateRuntimeError } from './python-values';
import { isMapping, pyTuple, pyTypeName } from '../../pycompat';
import { strict } from './undefined';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const lexer = nj.lexer;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;
const Tokenizer = Object.getPrototypeOf(lexer.lex('')).constructor;

/** A tuple literal; an Array node, so nunjucks accepts it wherever an expression goes. */
const BrineTuple = nodes.Array.extend('BrineTuple');
/** JavaScript text standing for a value (the parts of an unpacked assignment). */
export const BrineRaw = nodes.FunCall.extend('BrineRaw', { fields: ['code'] });
/** A dict literal whose keys are expressions. */
const BrineDict = nodes.Dict.extend('BrineDict');

const OPENERS = new Set([lexer.TOKEN_LEFT_PAREN, lexer.TOKEN_LEFT_BRACKET, lexer.TOKEN_LEFT_CURLY]);
const CLOSERS = new Set([lexer.TOKEN_RIGHT_PAREN, lexer.TOKEN_RIGHT_BRACKET, lexer.TOKEN_RIGHT_CURLY]);

/** After `(`: a parenthesised expression, or a tuple when a comma appears (or nothing at all). */
function parseParen(parser: AnyNode): AnyNode {
  const open = parser.nextToken();
  const items: AnyNode[] = [];
  let comma = false;
  for (;;) {
    if (parser.skip(lexer.TOKEN_RIGHT_PAREN)) break;
    if (items.length > 0) {
      if (!parser.skip(lexer.TOKEN_COMMA)) parser.fail("expected ',' or ')' in parentheses", open.lineno, open.colno);
      comma = true;
      if (parser.skip(lexer.TOKEN_RIGHT_PAREN)) break;
    }
    items.push(parser.parseExpression());
  }
  if (items.length === 1 && !comma) {
    const group = new nodes.Group(open.lineno, open.colno);
    group.addChild(items[0]);
    return group;
  }
  return new BrineTuple(open.lineno, open.colno, items);
}

/** `expr` or `expr, expr, ...` (an implicit tuple), as after `set x =`. */
export function parseTupleExpression(parser: AnyNode): AnyNode {
  const first = parser.parseExpression();
  if (parser.peekToken().type !== lexer.TOKEN_COMMA) return first;
  const items = [first];
  while (parser.skip(lexer.TOKEN_COMMA)) {
    const next = parser.peekToken().type;
    if (next === lexer.TOKEN_BLOCK_END || next === lexer.TOKEN_VARIABLE_END) break;
    items.push(parser.parseExpression());
  }
  return new BrineTuple(first.lineno, first.colno, items);
}

/** Marks a `set` of several names: the value is unpacked into them. */
export function markUnpack(node: AnyNode): AnyNode {
  if (node.targets.length > 1 && node.value) node.brineUnpack = true;
  return node;
}

let installed = false;

/** Install the lexer, parser, compiler and runtime additions (once per process). */
export function installJinjaTuples(isBrine: (compiler: AnyNode) => boolean): void {
  if (installed) return;
  installed = true;

  // Jinja balances brackets inside a tag: `}}` there closes two dicts, not the tag.
  const nextToken = Tokenizer.prototype.nextToken;
  Tokenizer.prototype.nextToken = function (this: AnyNode) {
    if (this.in_code && this.brineDepth > 0 && this.current() === '}') {
      const { lineno, colno } = this;
      this.forward();
      this.brineDepth--;
      return { type: lexer.TOKEN_RIGHT_CURLY, value: '}', lineno, colno };
    }
    const tok = nextToken.call(this);
    if (tok) {
      if (OPENERS.has(tok.type)) this.brineDepth = (this.brineDepth ?? 0) + 1;
      else if (CLOSERS.has(tok.type)) this.brineDepth = Math.max(0, (this.brineDepth ?? 0) - 1);
      else if (tok.type === lexer.TOKEN_BLOCK_END || tok.type === lexer.TOKEN_VARIABLE_END) this.brineDepth = 0;
    }
    return tok;
  };

  const parseAggregate = Parser.prototype.parseAggregate;
  Parser.prototype.parseAggregate = function (this: AnyNode) {
    if (this.peekToken().type === lexer.TOKEN_LEFT_PAREN) return parseParen(this);
    const node = parseAggregate.call(this);
    if (node instanceof nodes.Dict) {
      const plain = node.children.every((pair: AnyNode) => pair.key instanceof nodes.Literal && typeof pair.key.value === 'string');
      if (!plain) return new BrineDict(node.lineno, node.colno, node.children);
    }
    return node;
  };

  Compiler.prototype.compileBrineTuple = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    this._emit('runtime.brineTuple(');
    this._compileAggregate(node, frame, '[', ']');
    this._emit(')');
  };

  Compiler.prototype.compileBrineRaw = function (this: AnyNode, node: AnyNode) {
    this._emit(node.code);
  };

  Compiler.prototype.compileBrineDict = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (!isBrine(this)) this.fail('Dict keys must be strings or names', node.lineno, node.colno);
    this._emit('runtime.brineDict([');
    for (const pair of node.children) {
      this._emit('[');
      this._compileExpression(pair.key, frame);
      this._emit(', ');
      this._compileExpression(pair.value, frame);
      this._emit('], ');
    }
    this._emit(`], ${node.lineno + 1})`);
  };

  const compileSet = Compiler.prototype.compileSet;
  Compiler.prototype.compileSet = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (!node.brineUnpack) return compileSet.call(this, node, frame);
    const tmp = this._tmpid();
    this._emit(`var ${tmp} = runtime.brineUnpack(`);
    this._compileExpression(node.value, frame);
    this._emitLine(`, ${node.targets.length}, ${node.lineno + 1});`);
    node.targets.forEach((target: AnyNode, i: number) => {
      const part = new BrineRaw(node.lineno, node.colno, `${tmp}[${i}]`);
      compileSet.call(this, new nodes.Set(node.lineno, node.colno, [target], part), frame);
    });
  };

  Object.assign(runtime, {
    brineTuple: (items: unknown[]) => pyTuple(items),
    brineDict(pairs: [unknown, unknown][], line: number): Record<string, unknown> {
      const out: Record<string, unknown> = {};
      for (const [key, value] of pairs) {
        strict(key, line);
        if (key !== null && typeof key === 'object') throw new TemplateRuntimeError(`unhashable type: '${pyTypeName(key)}'`, line);
        out[key === null || typeof key === 'boolean' ? pyText(key) : String(key)] = value;
      }
      return out;
    },
    brineUnpack(value: unknown, count: number, line: number): unknown[] {
      strict(value, line);
      let items: unknown[];
      if (Array.isArray(value)) items = value;
      else if (typeof value === 'string') items = [...value];
      else if (isMapping(value)) items = Object.keys(value);
      else throw new TemplateRuntimeError(`cannot unpack non-iterable ${pyTypeName(value)} object`, line);
      if (items.length > count) throw new TemplateRuntimeError(`too many values to unpack (expected ${count})`, line);
      if (items.length < count)
        throw new TemplateRuntimeError(`not enough values to unpack (expected ${count}, got ${items.length})`, line);
      return items;
    },
  });
}
