/**
 * Makes nunjucks behave as Salt's Jinja where Salt's templates can tell the difference. nunjucks
 * is used as it is for lexing, parsing, macros, imports and caching; brine adds, only for the
 * environments it creates (marked through `opts.throwOnUndefined`), a tree rewrite before code
 * generation so that names, lookups, output, tests of truth, `+`, `~`, `%`, comparisons and loops
 * go through Python semantics (python-values.ts) and Jinja's StrictUndefined (undefined.ts).
 * Two syntax additions are global but only accept what nunjucks refused before:
 * `{% set ns.attr = value %}` and the marking of `a.b` (attribute) versus `a['b']` (item).
 */
import nunjucks from 'nunjucks';
import { Namespace, TemplateRuntimeError, iterate, lookup, pyAdd, pyIn, pyCompare, pyMod, pyMul, pyText, truthy } from './python-values';
import { Undefined, UndefinedError, missingName, strict } from './undefined';
import { JINJA_CONSTANTS, installJinjaStatements, loopFilterNode } from './jinja-statements';
import { installJinjaTuples, markUnpack, parseTupleExpression } from './jinja-tuples';
import { ARITHMETIC, foldNegation, installJinjaNumbers } from './jinja-numbers';
import { installJinjaIs } from './jinja-is';
import { installJinjaMacros } from './jinja-macros';
import { pyArith, pyUnary } from './python-numbers';

/** The marker stored in `env.opts.throwOnUndefined` of brine's environments. */
export const BRINE_MODE = 'brine-salt-jinja';

// nunjucks' internals have no type declarations: they are reached through these loose shapes.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const lexer = nj.lexer;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;

/** A call of one of brine's runtime helpers, placed in the tree by the rewrite below. */
const BrineCall = nodes.FunCall.extend('BrineCall', { fields: ['fn', 'args', 'withEnv'] });
/** `a and b` / `a or b` with Python truth and short-circuit: `b` is evaluated lazily. */
const BrineLazy = nodes.FunCall.extend('BrineLazy', { fields: ['fn', 'left', 'right'] });
// Extensions (tags.ts) build BrineCall nodes too; they find the class here.
nodes.FunCall.brineCallClass = BrineCall;

function call(node: AnyNode, fn: string, args: AnyNode[], withEnv = false): AnyNode {
  return new BrineCall(node.lineno, node.colno, fn, args, withEnv);
}

function literal(node: AnyNode, value: unknown): AnyNode {
  return new nodes.Literal(node.lineno, node.colno, value);
}

/** Rewrite a parsed template bottom-up; returns the node to compile in place of `node`. */
function rewrite(node: AnyNode): AnyNode {
  if (node === null || typeof node !== 'object' || !(node instanceof nodes.Node)) return node;
  if (node instanceof BrineCall) {
    node.args = node.args.map(rewrite);
    return node;
  }
  for (const field of node.fields as string[]) {
    const v = node[field];
    if (Array.isArray(v)) node[field] = v.map(rewrite);
    else if (v instanceof nodes.Node) node[field] = rewrite(v);
  }
  switch (node.typename) {
    case 'Output':
      node.children = node.children.map((c: AnyNode) => (c instanceof nodes.TemplateData ? c : call(c, 'brineOut', [c])));
      return node;
    case 'If':
    case 'InlineIf':
      node.cond = call(node.cond, 'brineBool', [node.cond]);
      return node;
    case 'Not':
      return call(node, 'brineNot', [node.target]);
    case 'And':
    case 'Or':
      return new BrineLazy(node.lineno, node.colno, node.typename === 'And' ? 'brineAnd' : 'brineOr', node.left, node.right);
    case 'Add':
      return call(node, 'brineAdd', [node.left, node.right]);
    case 'In':
      return call(node, 'brineIn', [node.left, node.right]);
    case 'Concat':
      return call(node, 'brineConcat', [node.left, node.right]);
    case 'Mod':
      return call(node, 'brineMod', [node.left, node.right]);
    case 'Mul':
      return call(node, 'brineMul', [node.left, node.right]);
    case 'Sub':
    case 'Div':
    case 'FloorDiv':
    case 'Pow':
      return call(node, 'brineArith', [literal(node, ARITHMETIC[node.typename]), node.left, node.right]);
    case 'Neg':
      return foldNegation(node) ?? call(node, 'brineUnary', [literal(node, '-'), node.target]);
    case 'Pos':
      return call(node, 'brineUnary', [literal(node, '+'), node.target]);
    case 'Compare':
      if (node.ops.length === 1) return call(node, 'brineCompare', [node.expr, literal(node, node.ops[0].type), node.ops[0].expr]);
      // `a < b < c` is `a < b and b < c`, as in Python.
      return call(node, 'brineCompareChain', [
        literal(node, node.ops.map((op: AnyNode) => op.type).join(' ')),
        node.expr,
        ...node.ops.map((op: AnyNode) => op.expr),
      ]);
    case 'LookupVal':
      return call(node, 'brineGet', [node.target, node.val, literal(node, node.brineAttr === true)]);
    case 'For': {
      node.arr = call(node.arr, 'brineIter', [node.arr, literal(node, node.name instanceof nodes.Array)]);
      if (node.brineFilter) {
        const cond = rewrite(node.brineFilter);
        node.arr = loopFilterNode(node, node.arr, call(cond, 'brineBool', [cond]));
      }
      return node;
    }
    case 'Symbol':
      return Object.prototype.hasOwnProperty.call(JINJA_CONSTANTS, node.value) ? literal(node, JINJA_CONSTANTS[node.value]) : node;
    default:
      return node;
  }
}

let installed = false;

/** Install the compiler, parser and runtime additions (once per process). */
export function installNunjucksCompat(): void {
  if (installed) return;
  installed = true;

  const isBrine = (c: AnyNode) => c.throwOnUndefined === BRINE_MODE;
  installJinjaStatements(isBrine);
  installJinjaTuples(isBrine);
  installJinjaNumbers(isBrine);
  installJinjaIs(isBrine);
  installJinjaMacros(isBrine);

  const compileRoot = Compiler.prototype.compileRoot;
  Compiler.prototype.compileRoot = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    return compileRoot.call(this, isBrine(this) ? rewrite(node) : node, frame);
  };

  const compileSymbol = Compiler.prototype.compileSymbol;
  Compiler.prototype.compileSymbol = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (!isBrine(this)) return compileSymbol.call(this, node, frame);
    const v = frame.lookup(node.value);
    if (v) this._emit(v);
    else this._emit(`runtime.brineName(context, frame, ${JSON.stringify(node.value)}, ${node.lineno + 1})`);
  };

  Compiler.prototype.compileBrineCall = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    this._emit(`runtime.${node.fn}(`);
    if (node.withEnv) this._emit(`env, context, ${JSON.stringify(this.templateName ?? '')}, `);
    for (const arg of node.args) {
      this._emit('(');
      this.compile(arg, frame);
      this._emit('), ');
    }
    this._emit(`${node.lineno + 1})`);
  };

  Compiler.prototype.compileBrineLazy = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    this._emit(`runtime.${node.fn}((`);
    this.compile(node.left, frame);
    this._emit('), function() { return (');
    this.compile(node.right, frame);
    this._emit(`); }, ${node.lineno + 1})`);
  };

  // `a.b` is an attribute lookup (Python methods first), `a['b']` an item lookup.
  const parsePostfix = Parser.prototype.parsePostfix;
  Parser.prototype.parsePostfix = function (this: AnyNode, node: AnyNode) {
    const tok = this.peekToken();
    if (tok && tok.type === lexer.TOKEN_OPERATOR && tok.value === '.') {
      this.nextToken();
      const val = this.nextToken();
      if (val.type !== lexer.TOKEN_SYMBOL) this.fail(`expected name as lookup value, got ${val.value}`, val.lineno, val.colno);
      const lookupNode = new nodes.LookupVal(tok.lineno, tok.colno, node, new nodes.Literal(val.lineno, val.colno, val.value));
      lookupNode.brineAttr = true;
      return this.parsePostfix(lookupNode);
    }
    return parsePostfix.call(this, node);
  };

  // `{% set ns.attr = value %}` (Jinja's namespace assignment); otherwise nunjucks' own set.
  Parser.prototype.parseSet = function (this: AnyNode) {
    const tag = this.peekToken();
    if (!this.skipSymbol('set')) this.fail('parseSet: expected set', tag.lineno, tag.colno);
    const node = new nodes.Set(tag.lineno, tag.colno, []);
    let target: AnyNode;
    while ((target = this.parsePrimary())) {
      if (node.targets.length === 0 && target instanceof nodes.LookupVal && target.brineAttr && target.target instanceof nodes.Symbol) {
        if (!this.skipValue(lexer.TOKEN_OPERATOR, '=')) this.fail('expected = in set tag', tag.lineno, tag.colno);
        const value = this.parseExpression();
        this.advanceAfterBlockEnd(tag.value);
        return new nodes.Output(tag.lineno, tag.colno, [
          new BrineCall(tag.lineno, tag.colno, 'brineSetAttr', [target.target, target.val, value], false),
        ]);
      }
      node.targets.push(target);
      if (!this.skip(lexer.TOKEN_COMMA)) break;
    }
    if (!this.skipValue(lexer.TOKEN_OPERATOR, '=')) {
      if (!this.skip(lexer.TOKEN_BLOCK_END)) this.fail('parseSet: expected = or block end in set tag', tag.lineno, tag.colno);
      node.body = new nodes.Capture(tag.lineno, tag.colno, this.parseUntilBlocks('endset'));
      node.value = null;
      this.advanceAfterBlockEnd();
    } else {
      node.value = parseTupleExpression(this);
      this.advanceAfterBlockEnd(tag.value);
    }
    return markUnpack(node);
  };

  // Calling an Undefined is Jinja's UndefinedError, not nunjucks' "Unable to call".
  const callWrap = runtime.callWrap;
  runtime.callWrap = function (obj: unknown, name: string, context: unknown, args: unknown[]) {
    strict(obj);
    return callWrap(obj, name, context, args);
  };

  Object.assign(runtime, {
    brineName(context: AnyNode, frame: AnyNode, name: string): unknown {
      const v = frame.lookup(name);
      if (v !== undefined) return v;
      if (name in context.ctx) return context.ctx[name];
      if (name in context.env.globals) return context.env.globals[name];
      return missingName(name);
    },
    brineGet: (obj: unknown, key: unknown, attr: boolean, line: number) => lookup(obj, key, attr, line),
    brineOut: (value: unknown, line: number) => pyText(value, line),
    brineBool: (value: unknown, line: number) => truthy(value, line),
    brineNot: (value: unknown, line: number) => !truthy(value, line),
    brineAnd: (left: unknown, right: () => unknown, line: number) => (truthy(left, line) ? right() : left),
    brineOr: (left: unknown, right: () => unknown, line: number) => (truthy(left, line) ? left : right()),
    brineAdd: (a: unknown, b: unknown, line: number) => pyAdd(a, b, line),
    brineIn: (a: unknown, b: unknown, line: number) => pyIn(a, b, line),
    brineConcat: (a: unknown, b: unknown, line: number) => pyText(a, line) + pyText(b, line),
    brineMod: (a: unknown, b: unknown, line: number) => pyMod(a, b, line),
    brineCompare: (a: unknown, op: string, b: unknown, line: number) => pyCompare(a, op, b, line),
    brineCompareChain(ops: string, ...rest: unknown[]): boolean {
      const line = rest.pop() as number;
      return ops.split(' ').every((op, i) => pyCompare(rest[i], op, rest[i + 1], line));
    },
    brineMul: (a: unknown, b: unknown, line: number) => pyMul(a, b, line),
    brineArith: (op: string, a: unknown, b: unknown, line: number) => {
      strict(a, line);
      strict(b, line);
      return pyArith(op, a, b, line);
    },
    brineUnary: (op: '-' | '+', a: unknown, line: number) => {
      strict(a, line);
      return pyUnary(op, a, line);
    },
    brineIter: (value: unknown, pairs: boolean, line: number) => iterate(value, line, pairs),
    brineSetAttr(ns: unknown, attr: string, value: unknown, line: number): string {
      if (!(ns instanceof Namespace)) throw new TemplateRuntimeError('cannot assign attribute on non-namespace object', line);
      ns[attr] = value;
      return '';
    },
    brineDiscard: () => '',
  });
}

export { Undefined, UndefinedError };
