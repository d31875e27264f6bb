/**
 * Salt's `yaml` outputter: PyYAML's yaml.dump(data, Dumper=SafeOrderedDumper, allow_unicode=True,
 * default_flow_style=False) byte for byte for the data brine prints (salt/output/yaml_out.py).
 * Keys sorted (an OrderedDict's kept in order, as SafeOrderedDumper does), sequences under a key not indented, strings quoted only when YAML would read them
 * as something else, long lines folded at 80 columns, a lone plain scalar followed by `...`.
 * The emitter keeps PyYAML's column/indent bookkeeping so the folding matches.
 */
import { classifyPlainScalar } from './yaml11-resolver';
import { compareCodePoints, entriesOf, isBytes, isMapping, pyFloat, unprintable } from './repr';
import { PyFloat } from './float';
import { analyzeScalar, isBreak, isPrintableUnicode } from './yaml-scalar';
import { isOrdered } from './ordered';

const BEST_WIDTH = 80;
const ESCAPES: Record<string, string> = {
  '\0': '0',
  '\x07': 'a',
  '\x08': 'b',
  '\x09': 't',
  '\x0A': 'n',
  '\x0B': 'v',
  '\x0C': 'f',
  '\x0D': 'r',
  '\x1B': 'e',
  '"': '"',
  '\\': '\\',
  '\x85': 'N',
  '\xA0': '_',
  '\u2028': 'L',
  '\u2029': 'P',
};

interface NodeContext {
  root?: boolean;
  mapping?: boolean;
  simpleKey?: boolean;
}

/** A scalar as PyYAML's SafeRepresenter gives it: its text and whether plain style reads back as the same type. */
interface ScalarNode {
  text: string;
  plainImplicit: boolean;
  tag?: string;
  literal?: boolean;
}

/** PyYAML's represent_float for a finite float. */
function floatNode(value: number): ScalarNode {
  let text = pyFloat(value).toLowerCase();
  if (!text.includes('.') && text.includes('e')) text = text.replace('e', '.0e');
  return { text, plainImplicit: true };
}

function scalarNode(value: unknown): ScalarNode | null {
  if (value === null || value === undefined) return { text: 'null', plainImplicit: true };
  if (value === true || value === false) return { text: String(value), plainImplicit: true };
  if (typeof value === 'bigint') return { text: value.toString(), plainImplicit: true };
  if (typeof value === 'number') {
    if (Number.isInteger(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER && !Object.is(value, -0))
      return { text: String(value), plainImplicit: true };
    if (Number.isNaN(value)) return { text: '.nan', plainImplicit: true };
    if (value === Infinity) return { text: '.inf', plainImplicit: true };
    if (value === -Infinity) return { text: '-.inf', plainImplicit: true };
    return floatNode(value);
  }
  if (value instanceof PyFloat) return floatNode(value.value);
  if (typeof value === 'string') return { text: value, plainImplicit: classifyPlainScalar(value) === 'str' };
  if (isBytes(value)) {
    // represent_binary: base64.encodebytes (76-character lines, each ending in a newline) as a literal block.
    const b64 = Buffer.from(value).toString('base64');
    const lines = b64.match(/.{1,76}/g) ?? [];
    return { text: lines.map((l) => l + '\n').join(''), plainImplicit: false, tag: '!!binary', literal: true };
  }
  return null;
}

export class YamlEmitter {
  private out = '';
  private column = 0;
  private whitespace = true;
  private indention = true;
  private openEnded = false;
  private indent: number | null = null;
  private readonly indents: (number | null)[] = [];
  private flowLevel = 0;
  private rootContext = false;
  private mappingContext = false;
  private simpleKeyContext = false;
  private readonly bestIndent: number;

  /** `flow` is default_flow_style=True (what Salt uses for a negative output indent). */
  constructor(private readonly options: { indent?: number; flow?: boolean } = {}) {
    const indent = options.indent ?? 2;
    this.bestIndent = indent > 1 && indent < 10 ? indent : 2;
  }

  dump(data: unknown): string {
    this.emitNode(data, { root: true }, 0);
    this.writeIndent();
    if (this.openEnded) {
      this.writeIndicator('...', true);
      this.writeIndent();
    }
    return this.out;
  }

  private emitNode(value: unknown, ctx: NodeContext, depth: number): void {
    if (depth > 500) throw unprintable(value);
    this.rootContext = ctx.root ?? false;
    this.mappingContext = ctx.mapping ?? false;
    this.simpleKeyContext = ctx.simpleKey ?? false;
    const scalar = scalarNode(value);
    if (scalar) {
      this.increaseIndent(true);
      this.processScalar(scalar);
      this.indent = this.indents.pop()!;
    } else if (Array.isArray(value)) {
      if (this.flowLevel || this.options.flow || value.length === 0) this.flowSequence(value, depth);
      else this.blockSequence(value, depth);
    } else if (isMapping(value)) {
      const items = isOrdered(value) ? entriesOf(value) : entriesOf(value).sort((a, b) => compareCodePoints(a[0], b[0]));
      if (this.flowLevel || this.options.flow || items.length === 0) this.flowMapping(items, depth);
      else this.blockMapping(items, depth);
    } else {
      throw unprintable(value);
    }
  }

  private blockSequence(items: unknown[], depth: number): void {
    const indentless = this.mappingContext && !this.indention;
    this.increaseIndent(false, indentless);
    for (const item of items) {
      this.writeIndent();
      this.writeIndicator('-', true, false, true);
      this.emitNode(item, {}, depth + 1);
    }
    this.indent = this.indents.pop()!;
  }

  private blockMapping(items: [string, unknown][], depth: number): void {
    this.increaseIndent(false);
    for (const [key, value] of items) {
      this.writeIndent();
      if (this.isSimpleKey(key)) {
        this.emitNode(key, { mapping: true, simpleKey: true }, depth + 1);
        this.writeIndicator(':', false);
      } else {
        this.writeIndicator('?', true, false, true);
        this.emitNode(key, { mapping: true }, depth + 1);
        this.writeIndent();
        this.writeIndicator(':', true, false, true);
      }
      this.emitNode(value, { mapping: true }, depth + 1);
    }
    this.indent = this.indents.pop()!;
  }

  private flowSequence(items: unknown[], depth: number): void {
    this.writeIndicator('[', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    items.forEach((item, i) => {
      if (i > 0) this.writeIndicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      this.emitNode(item, {}, depth + 1);
    });
    this.indent = this.indents.pop()!;
    this.flowLevel--;
    this.writeIndicator(']', false);
  }

  private flowMapping(items: [string, unknown][], depth: number): void {
    this.writeIndicator('{', true, true);
    this.flowLevel++;
    this.increaseIndent(true);
    items.forEach(([key, value], i) => {
      if (i > 0) this.writeIndicator(',', false);
      if (this.column > BEST_WIDTH) this.writeIndent();
      if (this.isSimpleKey(key)) {
        this.emitNode(key, { mapping: true, simpleKey: true }, depth + 1);
        this.writeIndicator(':', false);
      } else {
        this.writeIndicator('?', true);
        this.emitNode(key, { mapping: true }, depth + 1);
        if (this.column > BEST_WIDTH) this.writeIndent();
        this.writeIndicator(':', true);
      }
      this.emitNode(value, { mapping: true }, depth + 1);
    });
    this.indent = this.indents.pop()!;
    this.flowLevel--;
    this.writeIndicator('}', false);
  }

  private isSimpleKey(key: string): boolean {
    const chars = Array.from(key);
    const analysis = analyzeScalar(chars);
    return chars.length < 128 && !analysis.empty && !analysis.multiline;
  }

  private processScalar(node: ScalarNode): void {
    const chars = Array.from(node.text);
    const analysis = analyzeScalar(chars);
    const split = !this.simpleKeyContext;
    if (node.tag) this.writeIndicator(node.tag, true);
    if (node.literal) {
      // A literal-style node that cannot be a block (in flow context) falls back to double quotes.
      if (!this.flowLevel && !this.simpleKeyContext && analysis.allowBlock) this.writeLiteral(chars);
      else this.writeDoubleQuoted(chars, split);
      return;
    }
    const plainAllowed = this.flowLevel ? analysis.allowFlowPlain : analysis.allowBlockPlain;
    if (node.plainImplicit && !(this.simpleKeyContext && (analysis.empty || analysis.multiline)) && plainAllowed) {
      this.writePlain(chars, split);
    } else if (analysis.allowSingleQuoted && !(this.simpleKeyContext && analysis.multiline)) {
      this.writeSingleQuoted(chars, split);
    } else {
      this.writeDoubleQuoted(chars, split);
    }
  }

  private increaseIndent(flow: boolean, indentless = false): void {
    this.indents.push(this.indent);
    if (this.indent === null) this.indent = flow ? this.bestIndent : 0;
    else if (!indentless) this.indent += this.bestIndent;
  }

  private write(data: string): void {
    this.out += data;
  }

  private writeIndicator(indicator: string, needWhitespace: boolean, whitespace = false, indention = false): void {
    const data = this.whitespace || !needWhitespace ? indicator : ' ' + indicator;
    this.whitespace = whitespace;
    this.indention = this.indention && indention;
    this.column += data.length;
    this.openEnded = false;
    this.write(data);
  }

  private writeIndent(): void {
    const indent = this.indent ?? 0;
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.writeLineBreak();
    if (this.column < indent) {
      this.whitespace = true;
      this.write(' '.repeat(indent - this.column));
      this.column = indent;
    }
  }

  private writeLineBreak(data = '\n'): void {
    this.whitespace = true;
    this.indention = true;
    this.column = 0;
    this.write(data);
  }

  private writeText(chars: readonly string[], start: number, end: number): void {
    this.column += end - start;
    this.write(chars.slice(start, end).join(''));
  }

  private writeBreaks(chars: readonly string[], start: number, end: number): void {
    for (let i = start; i < end; i++) this.writeLineBreak(chars[i] === '\n' ? '\n' : chars[i]);
  }

  private writePlain(chars: readonly string[], split: boolean): void {
    if (this.rootContext) this.openEnded = true;
    if (chars.length === 0) return;
    if (!this.whitespace) {
      this.column += 1;
      this.write(' ');
    }
    this.whitespace = false;
    this.indention = false;
    let spaces = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split) {
            this.writeIndent();
            this.whitespace = false;
            this.indention = false;
          } else this.writeText(chars, start, end);
          start = end;
        }
      } else if (ch === undefined || ch === ' ' || isBreak(ch)) {
        this.writeText(chars, start, end);
        start = end;
      }
      if (ch !== undefined) spaces = ch === ' ';
    }
  }

  private writeSingleQuoted(chars: readonly string[], split: boolean): void {
    this.writeIndicator("'", true);
    let spaces = false;
    let breaks = false;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (spaces) {
        if (ch !== ' ') {
          if (start + 1 === end && this.column > BEST_WIDTH && split && start !== 0 && end !== chars.length) this.writeIndent();
          else this.writeText(chars, start, end);
          start = end;
        }
      } else if (breaks) {
        if (!isBreak(ch)) {
          // A single line break inside quotes folds to a space, so each break is written twice.
          if (chars[start] === '\n') this.writeLineBreak();
          this.writeBreaks(chars, start, end);
          this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || ch === ' ' || isBreak(ch) || ch === "'") {
        if (start < end) {
          this.writeText(chars, start, end);
          start = end;
        }
      }
      if (ch === "'") {
        this.column += 2;
        this.write("''");
        start = end + 1;
      }
      if (ch !== undefined) {
        spaces = ch === ' ';
        breaks = isBreak(ch);
      }
    }
    this.writeIndicator("'", false);
  }

  private writeDoubleQuoted(chars: readonly string[], split: boolean): void {
    this.writeIndicator('"', true);
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      const cp = ch === undefined ? 0 : ch.codePointAt(0)!;
      const plain =
        ch !== undefined &&
        !'"\\\x85\u2028\u2029\uFEFF'.includes(ch) &&
        ((cp >= 0x20 && cp <= 0x7e) || (cp <= 0xfffd && isPrintableUnicode(cp)));
      if (!plain) {
        if (start < end) {
          this.writeText(chars, start, end);
          start = end;
        }
        if (ch !== undefined) {
          let data: string;
          if (ch in ESCAPES) data = '\\' + ESCAPES[ch];
          else if (cp <= 0xff) data = '\\x' + cp.toString(16).toUpperCase().padStart(2, '0');
          else if (cp <= 0xffff) data = '\\u' + cp.toString(16).toUpperCase().padStart(4, '0');
          else data = '\\U' + cp.toString(16).toUpperCase().padStart(8, '0');
          this.column += data.length;
          this.write(data);
          start = end + 1;
        }
      }
      if (end > 0 && end < chars.length - 1 && (ch === ' ' || start >= end) && this.column + (end - start) > BEST_WIDTH && split) {
        const data = chars.slice(start, end).join('') + '\\';
        if (start < end) start = end;
        this.column += data.length;
        this.write(data);
        this.writeIndent();
        this.whitespace = false;
        this.indention = false;
        if (chars[start] === ' ') {
          this.column += 1;
          this.write('\\');
        }
      }
    }
    this.writeIndicator('"', false);
  }

  private writeLiteral(chars: readonly string[]): void {
    this.writeIndicator('|', true);
    this.writeLineBreak();
    let breaks = true;
    let start = 0;
    for (let end = 0; end <= chars.length; end++) {
      const ch = end < chars.length ? chars[end] : undefined;
      if (breaks) {
        if (!isBreak(ch)) {
          this.writeBreaks(chars, start, end);
          if (ch !== undefined) this.writeIndent();
          start = end;
        }
      } else if (ch === undefined || isBreak(ch)) {
        this.writeText(chars, start, end);
        if (ch === undefined) this.writeLineBreak();
        start = end;
      }
      if (ch !== undefined) breaks = isBreak(ch);
    }
  }
}

/** yaml.dump of `data` as Salt's yaml outputter calls it. `indent` is output_indent (negative: flow style). */
export function formatYaml(data: unknown, indent?: number): string {
  if (indent !== undefined && indent < 0) return new YamlEmitter({ flow: true }).dump(data);
  return new YamlEmitter({ indent }).dump(data);
}
