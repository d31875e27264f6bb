/**
 * Jinja syntax nunjucks lacks and Salt's templates use: `{% with %}` scopes, `{% break %}` and
 * `{% continue %}` (Salt enables jinja2.ext.loopcontrols), loop filters
 * (`{% for x in xs if x.enabled %}`, applied before `loop.index`/`loop.length` are counted),
 * slices (`name[1:]`, `items[::-1]`), `loop.cycle(...)`, `loop.previtem`/`loop.nextitem`,
 * `loop.changed(...)`, recursive loops (`{% for x in tree recursive %}...{{ loop(x.children) }}`,
 * with `loop.depth`), and the constants `True`, `False`, `None`. Like the rest of nunjucks-compat.ts, every addition accepts
 * only what nunjucks refused before; the runtime parts are used by brine's environments only.
 */
import nunjucks from 'nunjucks';
import { SliceError, pyEqual, pySlice, pyTuple } from '../../pycompat';
import { TemplateRuntimeError } from './python-values';
import { strict } from './undefined';
import { BrineRaw } from './jinja-tuples';

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyNode = any;
const nj = nunjucks as any;
const nodes = nj.nodes;
const lexer = nj.lexer;
const Compiler = nj.compiler.Compiler;
const Parser = nj.parser.Parser;
const runtime = nj.runtime;

const BrineWith = nodes.Node.extend('BrineWith', { fields: ['names', 'values', 'body'] });
const BrineLoopControl = nodes.Node.extend('BrineLoopControl', { fields: ['kind'] });
// A FunCall, so that nunjucks accepts it where an expression goes.
const BrineLoopFilter = nodes.FunCall.extend('BrineLoopFilter', { fields: ['arr', 'cond', 'names'] });

/** Jinja's constants, which are names to nunjucks' lexer. */
export const JINJA_CONSTANTS: Record<string, boolean | null> = { True: true, False: false, None: null };

/** Parse `fn` with no enclosing loop: a macro, a call block or a captured block is a function. */
function outsideLoops<T>(parser: AnyNode, fn: () => T): T {
  const saved = parser.brineLoops ?? 0;
  parser.brineLoops = 0;
  try {
    return fn();
  } finally {
    parser.brineLoops = saved;
  }
}

function parseWith(parser: AnyNode): AnyNode {
  const tok = parser.nextToken();
  const names: string[] = [];
  const values: AnyNode[] = [];
  while (parser.peekToken().type !== lexer.TOKEN_BLOCK_END) {
    if (names.length > 0 && !parser.skip(lexer.TOKEN_COMMA))
      parser.fail("expected ',' between the assignments of a with tag", tok.lineno, tok.colno);
    const name = parser.nextToken();
    if (name.type !== lexer.TOKEN_SYMBOL) parser.fail(`expected a name in the with tag, got '${name.value}'`, name.lineno, name.colno);
    if (!parser.skipValue(lexer.TOKEN_OPERATOR, '='))
      parser.fail(`expected '=' after '${name.value}' in the with tag`, name.lineno, name.colno);
    names.push(name.value);
    values.push(parser.parseExpression());
  }
  parser.advanceAfterBlockEnd(tok.value);
  const body = parser.parseUntilBlocks('endwith');
  parser.advanceAfterBlockEnd();
  return new BrineWith(tok.lineno, tok.colno, names, values, body);
}

function parseLoopControl(parser: AnyNode): AnyNode {
  const tok = parser.nextToken();
  if (!parser.brineLoops) parser.fail(`'${tok.value}' can only be used inside a for loop`, tok.lineno, tok.colno);
  parser.advanceAfterBlockEnd(tok.value);
  return new BrineLoopControl(tok.lineno, tok.colno, tok.value);
}

/** After `[`: an index (`x[k]`) or a slice (`x[a:b:c]`, any part omitted). */
function parseSubscript(parser: AnyNode, target: AnyNode, tok: AnyNode): AnyNode {
  const parts: AnyNode[] = [null];
  for (;;) {
    const next = parser.peekToken();
    if (next.type === lexer.TOKEN_RIGHT_BRACKET) {
      parser.nextToken();
      break;
    }
    if (next.type === lexer.TOKEN_COLON) {
      parser.nextToken();
      if (parts.length === 3) parser.fail('a slice has at most three parts', next.lineno, next.colno);
      parts.push(null);
      continue;
    }
    if (parts[parts.length - 1] !== null) parser.fail("expected ']' or ':' in a subscript", next.lineno, next.colno);
    parts[parts.length - 1] = parser.parseExpression();
  }
  if (parts.length === 1) {
    if (parts[0] === null) parser.fail('expected an index between [ and ]', tok.lineno, tok.colno);
    return new nodes.LookupVal(tok.lineno, tok.colno, target, parts[0]);
  }
  const none = () => new nodes.Literal(tok.lineno, tok.colno, null);
  const [start, stop, step] = [parts[0] ?? none(), parts[1] ?? none(), parts[2] ?? none()];
  const BrineCall = nodes.FunCall.brineCallClass;
  return new BrineCall(tok.lineno, tok.colno, 'brineSlice', [target, start, stop, step], false);
}

/** Names a `set` inside `body` assigns (not inside macros, which have their own scope). */
function assignedNames(node: AnyNode, out: Set<string>): Set<string> {
  if (node === null || typeof node !== 'object') return out;
  if (Array.isArray(node)) {
    for (const n of node) assignedNames(n, out);
    return out;
  }
  if (!(node instanceof nodes.Node) || node instanceof nodes.Macro) return out;
  if (node instanceof nodes.Set) for (const t of node.targets) if (t instanceof nodes.Symbol) out.add(t.value);
  for (const field of node.fields as string[]) assignedNames(node[field], out);
  return out;
}

/** nunjucks' parseFor, taking Jinja's targets: `for (a, b) in`, `for k, (a, b) in`. */
function parseJinjaFor(parser: AnyNode): AnyNode {
  const tok = parser.nextToken();
  const node = new nodes.For(tok.lineno, tok.colno);
  let name = parser.parsePrimary();
  if (parser.peekToken().type === lexer.TOKEN_COMMA) {
    const names = new nodes.Array(name.lineno, name.colno);
    names.addChild(name);
    while (parser.skip(lexer.TOKEN_COMMA)) names.addChild(parser.parsePrimary());
    name = names;
  } else {
    while (name instanceof nodes.Group) name = name.children[0];
    if (name instanceof nodes.Array) name = new nodes.Array(name.lineno, name.colno, name.children);
  }
  if (!(name instanceof nodes.Symbol) && !(name instanceof nodes.Array))
    parser.fail('variable name expected for loop', tok.lineno, tok.colno);
  node.name = name;
  if (!parser.skipSymbol('in')) parser.fail('expected "in" keyword for loop', tok.lineno, tok.colno);
  node.arr = parser.parseExpression();
  parser.advanceAfterBlockEnd(tok.value);
  node.body = parser.parseUntilBlocks('endfor', 'else');
  if (parser.skipSymbol('else')) {
    parser.advanceAfterBlockEnd('else');
    node.else_ = parser.parseUntilBlocks('endfor');
  }
  parser.advanceAfterBlockEnd();
  return node;
}

/**
 * `for k, (a, b) in d.items()`: each nested group of names becomes a hidden loop variable,
 * unpacked into its names by `set` statements at the start of the loop body.
 */
function unpackNestedNames(parser: AnyNode, node: AnyNode): void {
  const sets: AnyNode[] = [];
  const flatten = (target: AnyNode): AnyNode => {
    if (target instanceof nodes.Symbol) return target;
    const names = target instanceof nodes.Group ? [target.children[0]] : target instanceof nodes.Array ? target.children : null;
    if (!names || names.length === 0) parser.fail(`cannot unpack into ${target.typename} in a for loop`, target.lineno, target.colno);
    if (target instanceof nodes.Group) return flatten(names[0]);
    const hidden = new nodes.Symbol(target.lineno, target.colno, `__brine_unpack${(parser.brineUnpacks = (parser.brineUnpacks ?? 0) + 1)}`);
    const set = new nodes.Set(target.lineno, target.colno, names.map(flatten), hidden);
    set.brineUnpack = true;
    sets.unshift(set);
    return hidden;
  };
  node.name.children = node.name.children.map(flatten);
  if (sets.length > 0) node.body.children.unshift(...sets);
}

let installed = false;

/** Install the parser, compiler and runtime additions (once per process). */
export function installJinjaStatements(isBrine: (compiler: AnyNode) => boolean): void {
  if (installed) return;
  installed = true;

  const parseStatement = Parser.prototype.parseStatement;
  Parser.prototype.parseStatement = function (this: AnyNode) {
    const tok = this.peekToken();
    const closing = this.breakOnBlocks && this.breakOnBlocks.includes(tok.value);
    if (tok.type === lexer.TOKEN_SYMBOL && !closing) {
      if (tok.value === 'with') return parseWith(this);
      if (tok.value === 'break' || tok.value === 'continue') return parseLoopControl(this);
    }
    return parseStatement.call(this);
  };

  // `recursive` after a for's iterable: nunjucks expects the block end there.
  const advanceAfterBlockEnd = Parser.prototype.advanceAfterBlockEnd;
  Parser.prototype.advanceAfterBlockEnd = function (this: AnyNode, name?: string) {
    const tok = this.peekToken();
    const fors: { recursive: boolean }[] | undefined = this.brineFors;
    if (name === 'for' && fors?.length && tok?.type === lexer.TOKEN_SYMBOL && tok.value === 'recursive') {
      this.nextToken();
      fors[fors.length - 1].recursive = true;
    }
    return advanceAfterBlockEnd.call(this, name);
  };

  const parseFor = Parser.prototype.parseFor;
  Parser.prototype.parseFor = function (this: AnyNode) {
    const saved = this.brineLoops ?? 0;
    this.brineLoops = saved + 1;
    const fors: { recursive: boolean }[] = (this.brineFors ??= []);
    fors.push({ recursive: false });
    let node: AnyNode;
    try {
      node = this.peekToken().value === 'for' ? parseJinjaFor(this) : parseFor.call(this);
    } finally {
      this.brineLoops = saved;
    }
    if (fors.pop()!.recursive) node.brineRecursive = true;
    if (node.name instanceof nodes.Array) unpackNestedNames(this, node);
    // `for x in xs if cond`: nunjucks read `xs if cond` as a conditional expression with no else,
    // which Jinja does not allow there; it is the loop filter.
    if (node.arr instanceof nodes.InlineIf && !node.arr.else_) {
      node.brineFilter = node.arr.cond;
      node.arr = node.arr.body;
    }
    return node;
  };
  for (const method of ['parseMacro', 'parseCall', 'parseFilterStatement']) {
    const original = Parser.prototype[method];
    Parser.prototype[method] = function (this: AnyNode, ...args: unknown[]) {
      return outsideLoops(this, () => original.apply(this, args));
    };
  }
  const parseUntilBlocks = Parser.prototype.parseUntilBlocks;
  Parser.prototype.parseUntilBlocks = function (this: AnyNode, ...blocks: string[]) {
    // A `{% set x %}...{% endset %}` body is compiled into a function of its own.
    if (blocks.length === 1 && blocks[0] === 'endset') return outsideLoops(this, () => parseUntilBlocks.apply(this, blocks));
    return parseUntilBlocks.apply(this, blocks);
  };

  // Postfix `[` (indexes and slices: nunjucks' own handles no `:`) and `(`, so that a call is
  // followed by a slice too (`x.split()[1:]`); `.` is nunjucks-compat.ts's.
  const parsePostfix = Parser.prototype.parsePostfix;
  Parser.prototype.parsePostfix = function (this: AnyNode, node: AnyNode) {
    const tok = this.peekToken();
    if (tok && tok.type === lexer.TOKEN_LEFT_BRACKET) {
      this.nextToken();
      return this.parsePostfix(parseSubscript(this, node, tok));
    }
    if (tok && tok.type === lexer.TOKEN_LEFT_PAREN) {
      return this.parsePostfix(new nodes.FunCall(tok.lineno, tok.colno, node, this.parseSignature()));
    }
    return parsePostfix.call(this, node);
  };

  Compiler.prototype.compileBrineWith = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    const ids = node.values.map((value: AnyNode) => {
      const id = this._tmpid();
      this._emit(`var ${id} = `);
      this._compileExpression(value, frame);
      this._emitLine(';');
      return id;
    });
    // A `set` inside writes to the with's scope only: new variables, in the compiled code too.
    const inner = frame.push(true);
    this._emitLine('frame = frame.push(true);');
    node.names.forEach((name: string, i: number) => {
      inner.set(name, ids[i]);
      this._emitLine(`frame.set(${JSON.stringify(name)}, ${ids[i]});`);
    });
    for (const name of assignedNames(node.body, new Set())) {
      if (node.names.includes(name)) continue;
      const id = this._tmpid();
      this._emitLine(`var ${id};`);
      inner.set(name, id);
    }
    this.compile(node.body, inner);
    this._emitLine('frame = frame.pop();');
  };

  const compileFor = Compiler.prototype.compileFor;
  const compileLoop = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    this.brineLoopScopes = [...(this.brineLoopScopes ?? []), this._scopeClosers];
    try {
      return compileFor.call(this, node, frame);
    } finally {
      this.brineLoopScopes = this.brineLoopScopes.slice(0, -1);
    }
  };
  Compiler.prototype.compileFor = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    if (!node.brineRecursive) return compileLoop.call(this, node, frame);
    if (!isBrine(this)) this.fail("recursive loops need brine's Jinja environment", node.lineno, node.colno);
    // A recursive loop is a function of the iterable and the depth; `loop(x)` calls it again.
    const fn = this._tmpid();
    const items = this._tmpid();
    node.brineFn = fn;
    node.brineDepth = this._tmpid();
    // The iterable (brineIter's argument, inside the loop filter if any) becomes the parameter.
    const iter = node.arr.typename === 'BrineLoopFilter' ? node.arr.arr : node.arr;
    const iterable = iter.args[0];
    iter.args[0] = new BrineRaw(node.lineno, node.colno, items);
    this._emitLine(`var ${fn} = function(${items}, ${node.brineDepth}, frame) {`);
    const buffer = this._pushBuffer();
    compileLoop.call(this, node, frame);
    this._emitLine(`return new runtime.SafeString(${buffer});`);
    this._popBuffer();
    this._emitLine('};');
    this._emit(`${this.buffer} += ${fn}(`);
    this._compileExpression(iterable, frame);
    this._emitLine(', 1, frame);');
  };

  Compiler.prototype.compileBrineLoopControl = function (this: AnyNode, node: AnyNode) {
    const scopes: string[] = this.brineLoopScopes ?? [];
    // After an include or import in the same loop body, the rest of the body runs in a callback.
    if (scopes.length === 0 || scopes[scopes.length - 1] !== this._scopeClosers) {
      this.fail(
        `brine cannot '${node.kind}' after an include or import inside the same loop: move the import before the loop`,
        node.lineno,
        node.colno,
      );
    }
    this._emitLine(`${node.kind};`);
  };

  Compiler.prototype.compileBrineLoopFilter = function (this: AnyNode, node: AnyNode, frame: AnyNode) {
    const item = this._tmpid();
    const inner = frame.push();
    this._emit(`runtime.brineLoopFilter((`);
    this.compile(node.arr, frame);
    this._emit(`), function(${item}) { `);
    node.names.forEach((name: string, i: number) => {
      const id = this._tmpid();
      this._emit(`var ${id} = ${node.names.length > 1 ? `${item}[${i}]` : item}; `);
      inner.set(name, id);
    });
    this._emit('return (');
    this.compile(node.cond, inner);
    this._emit('); })');
  };

  // loop.cycle, loop.previtem, loop.nextitem, loop.depth (brine's loops always walk an array).
  const emitLoopBindings = Compiler.prototype._emitLoopBindings;
  Compiler.prototype._emitLoopBindings = function (this: AnyNode, node: AnyNode, arr: string, i: string, len: string) {
    if (node.brineRecursive) this._emitLine(`frame.set("loop", runtime.brineLoopCall(${node.brineFn}, ${node.brineDepth}, frame));`);
    emitLoopBindings.call(this, node, arr, i, len);
    if (!isBrine(this)) return;
    this._emitLine(`frame.set("loop.cycle", runtime.brineCycle(${i}));`);
    this._emitLine(`frame.set("loop.changed", runtime.brineChanged(frame));`);
    const depth = node.brineRecursive ? node.brineDepth : '1';
    this._emitLine(`frame.set("loop.depth", ${depth}); frame.set("loop.depth0", ${depth} - 1);`);
    this._emitLine(`if (runtime.isArray(${arr})) {`);
    this._emitLine(`if (${i} > 0) frame.set("loop.previtem", ${arr}[${i} - 1]); else delete frame.lookup("loop").previtem;`);
    this._emitLine(`if (${i} < ${len} - 1) frame.set("loop.nextitem", ${arr}[${i} + 1]); else delete frame.lookup("loop").nextitem;`);
    this._emitLine('}');
  };

  Object.assign(runtime, {
    brineLoopFilter: (items: unknown[], keep: (item: unknown) => boolean) => items.filter((item) => keep(item)),
    brineLoopCall(fn: (items: unknown, depth: number, frame: unknown) => unknown, depth: number, frame: unknown) {
      const loop = (items: unknown) => fn(items, depth + 1, frame);
      // loop.length and the other loop.* are set on it: a function's own are read-only.
      for (const own of ['length', 'name']) Object.defineProperty(loop, own, { writable: true, value: undefined });
      return loop;
    },
    // loop.changed(*values): true on the first call and whenever the values differ from the
    // previous call's; the state lives on the loop's frame (one per loop run).
    brineChanged:
      (frame: { brineLastChanged?: unknown[] }) =>
      (...values: unknown[]) => {
        const now = pyTuple(values);
        if (frame.brineLastChanged !== undefined && pyEqual(frame.brineLastChanged, now)) return false;
        frame.brineLastChanged = now;
        return true;
      },
    brineCycle:
      (index: number) =>
      (...values: unknown[]) => {
        if (values.length === 0) throw new TemplateRuntimeError('no items for cycling given');
        return values[index % values.length];
      },
    brineSlice(value: unknown, start: unknown, stop: unknown, step: unknown, line: number): unknown {
      strict(value, line);
      const seq = value instanceof String ? value.toString() : value;
      if (typeof seq !== 'string' && !Array.isArray(seq)) {
        const type =
          seq === null || seq === undefined ? 'NoneType' : typeof seq === 'number' ? 'int' : typeof seq === 'boolean' ? 'bool' : 'dict';
        throw new TemplateRuntimeError(`'${type}' object is not subscriptable`, line);
      }
      try {
        return typeof seq === 'string' ? pySlice(seq, start, stop, step) : pySlice(seq, start, stop, step);
      } catch (err) {
        if (err instanceof SliceError) throw new TemplateRuntimeError(err.message, line);
        throw err;
      }
    },
  });
}

/** The rewrite of a `for` node's loop filter (nunjucks-compat.ts's tree rewrite calls it). */
export function loopFilterNode(node: AnyNode, iterated: AnyNode, cond: AnyNode): AnyNode {
  const names: string[] = node.name instanceof nodes.Array ? node.name.children.map((c: AnyNode) => c.value) : [node.name.value];
  return new BrineLoopFilter(node.lineno, node.colno, iterated, cond, names);
}
