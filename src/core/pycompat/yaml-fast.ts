/**
 * A fast path of the SLS loader for the block YAML most SLS files are once Jinja has run: nested
 * block mappings and sequences of plain and quoted one-line scalars, `[]` and `{}`, comments, and
 * literal blocks (`|`, `|-`). The `yaml` package builds a document model first, and a minion's first state run
 * paid about 80 ms of cold parser code for a 150-line SLS (every minion renders its own text, so
 * no cache holds it). This reads the same texts line by line and gives the data the full loader
 * gives; anything else (flow collections, anchors, tags, folded or multi-line scalars, escapes,
 * tabs, duplicate keys, bad indentation: whatever could be an error or need YAML's finer rules)
 * returns `undefined`, and the caller parses the text with the full loader.
 */
import { markOrdered } from './ordered';
import { resolvePlainScalar } from './yaml11-resolver';

interface Line {
  indent: number;
  /** The line without its indentation. */
  text: string;
  /** Index in the raw lines (literal blocks read raw lines). */
  raw: number;
}

/** Thrown inside the fast path for a text it leaves to the full loader. */
class NotSimple extends Error {}

const notSimple = (): never => {
  throw new NotSimple();
};

// Characters that may not start a plain scalar (YAML's c-indicator), quotes handled apart.
const INDICATOR = new Set([',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', ':']);

/** Longest implicit key the `yaml` package accepts (YAML's 1024 characters, with a margin). */
const MAX_KEY = 1000;

export interface SimpleYamlOptions {
  /** Mark mappings as ordered (the SLS loader's OrderedDicts); default true. */
  ordered?: boolean;
  /** Filled with the line (1-based) of each key of a top-level mapping. */
  keyLines?: Map<string, number>;
}

/** The data of `text` as the SLS loader gives it, or undefined when the text needs the full loader. */
export function loadSimpleYaml(text: string, options: SimpleYamlOptions = {}): unknown {
  // Tabs, carriage returns, control characters and a BOM all have rules of their own.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b-\u001f\u007f\ufeff]/.test(text)) return undefined;
  try {
    return new Reader(text, options.ordered ?? true, options.keyLines).document();
  } catch (err) {
    if (err instanceof NotSimple) return undefined;
    throw err;
  }
}

class Reader {
  private readonly raw: string[];
  /** Content lines (neither blank nor comment-only). */
  private readonly lines: Line[] = [];
  private pos = 0;

  constructor(
    private readonly source: string,
    private readonly ordered: boolean,
    private readonly keyLines: Map<string, number> | undefined,
  ) {
    this.raw = source.split('\n');
    for (let i = 0; i < this.raw.length; i++) {
      const line = this.raw[i];
      let indent = 0;
      while (line.charCodeAt(indent) === 32) indent++;
      if (indent === line.length || line.charCodeAt(indent) === 35 /* # */) continue;
      this.lines.push({ indent, text: line.slice(indent).trimEnd(), raw: i });
    }
  }

  document(): unknown {
    const first = this.lines[0];
    if (!first || first.indent !== 0) return notSimple();
    if (first.text.startsWith('---') || first.text.startsWith('...') || first.text.startsWith('%')) return notSimple();
    const value = this.block(0);
    if (this.pos !== this.lines.length) return notSimple();
    return value;
  }

  /** The mapping or sequence whose first line is the next one, at `indent`. */
  private block(indent: number): unknown {
    const line = this.lines[this.pos];
    if (isDash(line.text)) return this.sequence(indent);
    if (keyEnd(line.text) === -1) return notSimple(); // a scalar on lines of its own
    return this.mapping(indent);
  }

  private mapping(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = this.ordered ? markOrdered({}) : {};
    for (;;) {
      const line = this.lines[this.pos];
      if (!line || line.indent < indent) return out;
      if (line.indent > indent || isDash(line.text)) return notSimple();
      const { key, rest } = splitKey(line.text);
      if (Object.prototype.hasOwnProperty.call(out, key)) return notSimple(); // the full loader says which
      if (indent === 0) this.keyLines?.set(key, line.raw + 1);
      this.pos++;
      Object.defineProperty(out, key, { value: this.value(rest, indent, true), enumerable: true, writable: true, configurable: true });
    }
  }

  private sequence(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      const line = this.lines[this.pos];
      if (!line || line.indent < indent) return out;
      if (line.indent > indent) return notSimple();
      if (!isDash(line.text)) return out;
      let skip = 1;
      while (line.text.charCodeAt(skip) === 32) skip++;
      const rest = line.text.slice(skip);
      if (rest !== '' && !rest.startsWith('#') && keyEnd(rest) !== -1) {
        // `- key: value`: a mapping whose keys line up with this first one.
        this.lines[this.pos] = { indent: indent + skip, text: rest, raw: line.raw };
        out.push(this.mapping(indent + skip));
        continue;
      }
      this.pos++;
      out.push(this.value(rest, indent, false));
    }
  }

  /**
   * The value after `key:` or `- ` (`rest`, maybe empty) of a line at `indent`. In a mapping
   * (`inMapping`) a sequence may stand at the key's own indentation.
   */
  private value(rest: string, indent: number, inMapping: boolean): unknown {
    if (rest === '' || rest.startsWith('#')) {
      const next = this.lines[this.pos];
      if (next && next.indent > indent) return this.block(next.indent);
      if (inMapping && next && next.indent === indent && isDash(next.text)) return this.sequence(indent);
      return null;
    }
    if (rest.startsWith('|')) return this.literal(rest, indent);
    const value = emptyFlow(rest, this.ordered) ?? scalar(rest);
    const next = this.lines[this.pos];
    if (next && next.indent > indent) return notSimple(); // a continued scalar, or an error
    return value;
  }

  /** A literal block (`|` clip or `|-` strip) of the line before this.pos, whose parent is at `indent`. */
  private literal(header: string, indent: number): string {
    const strip = header.startsWith('|-');
    const indicators = strip ? 2 : 1;
    // Only `|` or `|-`, then nothing or a comment: `|+`, `|2` and the like are the full loader's.
    if (header.length > indicators && (header[indicators] !== ' ' || !header.slice(indicators).trimStart().startsWith('#')))
      return notSimple();
    const start = this.lines[this.pos - 1].raw + 1;
    let blockIndent = -1;
    let end = start;
    for (; end < this.raw.length; end++) {
      const line = this.raw[end];
      let n = 0;
      while (line.charCodeAt(n) === 32) n++;
      if (n === line.length) continue;
      if (blockIndent === -1) {
        if (n <= indent) break;
        blockIndent = n;
      } else if (n < blockIndent) {
        if (n > indent) return notSimple();
        break;
      }
    }
    if (end === this.raw.length && !this.source.endsWith('\n')) return notSimple();
    // The block's lines run to the last one with content; blank lines after it are chomped.
    let last = end - 1;
    while (last >= start && this.raw[last].trim() === '') last--;
    const body: string[] = [];
    for (let i = start; i <= last; i++) {
      const line = this.raw[i];
      if (line.trim() === '') {
        if (line.length > blockIndent) return notSimple(); // spaces kept as content: YAML's finer rules
        body.push('');
      } else body.push(line.slice(blockIndent));
    }
    for (let i = last + 1; i < end; i++) if (this.raw[i].length > Math.max(blockIndent, indent)) return notSimple();
    while (this.pos < this.lines.length && this.lines[this.pos].raw < end) this.pos++;
    if (body.length === 0) return '';
    return strip ? body.join('\n') : `${body.join('\n')}\n`;
  }
}

/** `[]` or `{}` (as in `pkg.installed: []`), else undefined. */
function emptyFlow(text: string, ordered: boolean): unknown[] | Record<string, unknown> | undefined {
  const token = text.slice(0, 2);
  if (token !== '[]' && token !== '{}') return undefined;
  if (text.length > 2 && (text[2] !== ' ' || !text.slice(2).trimStart().startsWith('#'))) return notSimple();
  return token === '[]' ? [] : ordered ? markOrdered({}) : {};
}

/** `- item` or a lone `-`. */
function isDash(text: string): boolean {
  return text.charCodeAt(0) === 45 && (text.length === 1 || text.charCodeAt(1) === 32);
}

/** Where the key of `key: value` ends (the colon), or -1 when the line holds no such key. */
function keyEnd(text: string): number {
  const c = text[0];
  if (c === '"' || c === "'") {
    const close = quoteEnd(text);
    if (close === -1) return -1;
    let i = close + 1;
    while (text.charCodeAt(i) === 32) i++;
    return text[i] === ':' && (i + 1 === text.length || text.charCodeAt(i + 1) === 32) ? i : -1;
  }
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 58 /* : */ && (i + 1 === text.length || text.charCodeAt(i + 1) === 32)) return i;
    if (ch === 35 /* # */ && i > 0 && text.charCodeAt(i - 1) === 32) return -1;
  }
  return -1;
}

/** The key (as the loader names it) and the text after `key:`. */
function splitKey(text: string): { key: string; rest: string } {
  const end = keyEnd(text);
  if (end === -1 || end > MAX_KEY) return notSimple();
  const rest = text.slice(end + 1).trimStart();
  if (text[0] === '"' || text[0] === "'") return { key: quoted(text.slice(0, quoteEnd(text) + 1)), rest };
  const raw = text.slice(0, end).trimEnd();
  if (raw === '' || !plainStart(raw) || raw === '<<') return notSimple();
  const key = resolvePlainScalar(raw);
  if (key === null) return { key: 'None', rest };
  if (typeof key === 'boolean') return { key: key ? 'True' : 'False', rest };
  if (typeof key === 'object') return notSimple();
  return { key: String(key), rest };
}

/** Whether a plain scalar may start as `text` does. */
function plainStart(text: string): boolean {
  const c = text[0];
  if (INDICATOR.has(c) || c === '"' || c === "'") return false;
  return !(c === '-' && (text.length === 1 || text[1] === ' '));
}

/** The index of the quote closing the quoted scalar `text` starts with, or -1. */
function quoteEnd(text: string): number {
  const q = text[0];
  for (let i = 1; i < text.length; i++) {
    if (text[i] !== q) continue;
    if (q === "'" && text[i + 1] === "'") {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

/** A quoted scalar's value; escapes are the full loader's. */
function quoted(token: string): string {
  const body = token.slice(1, -1);
  if (token[0] === '"') return body.includes('\\') ? notSimple() : body;
  return body.replace(/''/g, "'");
}

/** A one-line scalar value, comment and all. */
function scalar(text: string): unknown {
  if (text[0] === '"' || text[0] === "'") {
    const close = quoteEnd(text);
    if (close === -1) return notSimple();
    const after = text.slice(close + 1).trimStart();
    if (after !== '' && !after.startsWith('#')) return notSimple();
    if (after !== '' && text[close + 1] !== ' ') return notSimple();
    return quoted(text.slice(0, close + 1));
  }
  if (!plainStart(text)) return notSimple();
  let end = text.length;
  for (let i = 1; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 35 /* # */ && text.charCodeAt(i - 1) === 32) {
      end = i;
      break;
    }
    if (ch === 58 /* : */ && (i + 1 === text.length || text.charCodeAt(i + 1) === 32)) return notSimple();
  }
  return resolvePlainScalar(text.slice(0, end).trimEnd());
}
