/**
 * Salt's `pprint` outputter: Python's pprint.pformat(data) (width 80, dict keys sorted). A value
 * whose repr fits stays on one line; otherwise dicts and lists put one item per line and long
 * strings are cut at whitespace into adjacent literals, as PrettyPrinter does.
 */
import { comparePyKeys, isBytes, isMapping, pyBytesRepr, pyRepr, pyStrRepr } from './repr';
import { pySplitlines } from './text';

const WIDTH = 80;

/** Python measures text in code points. */
function cpLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function formatPprint(data: unknown, indentPerLevel = 1): string {
  const p = new Printer(indentPerLevel);
  p.format(data, 0, 0, 0);
  return p.out;
}

class Printer {
  out = '';
  constructor(private readonly perLevel: number) {}

  format(value: unknown, indent: number, allowance: number, level: number): void {
    const rep = pyRepr(value, true);
    if (cpLen(rep) > WIDTH - indent - allowance) {
      if (isMapping(value)) return this.dict(value, indent, allowance, level + 1);
      if (Array.isArray(value)) return this.list(value, indent, allowance, level + 1);
      if (typeof value === 'string') return this.str(value, indent, allowance, level + 1);
      if (isBytes(value) && value.length > 4) return this.bytes(value, indent, allowance, level + 1);
    }
    this.out += rep;
  }

  private dict(value: Record<string, unknown> | Map<unknown, unknown>, indent: number, allowance: number, level: number): void {
    this.out += '{';
    if (this.perLevel > 1) this.out += ' '.repeat(this.perLevel - 1);
    const items: [unknown, unknown][] = value instanceof Map ? [...value.entries()] : Object.entries(value);
    items.sort((a, b) => comparePyKeys(a[0], b[0]));
    const inner = indent + this.perLevel;
    items.forEach(([key, val], i) => {
      const last = i === items.length - 1;
      const rep = pyRepr(key, true);
      this.out += rep + ': ';
      this.format(val, inner + cpLen(rep) + 2, last ? allowance + 1 : 1, level);
      if (!last) this.out += ',\n' + ' '.repeat(inner);
    });
    this.out += '}';
  }

  private list(value: unknown[], indent: number, allowance: number, level: number): void {
    this.out += '[';
    const inner = indent + this.perLevel;
    if (this.perLevel > 1) this.out += ' '.repeat(this.perLevel - 1);
    value.forEach((item, i) => {
      const last = i === value.length - 1;
      if (i > 0) this.out += ',\n' + ' '.repeat(inner);
      this.format(item, inner, last ? allowance + 1 : 1, level);
    });
    this.out += ']';
  }

  private str(value: string, indent: number, allowance: number, level: number): void {
    if (value.length === 0) {
      this.out += pyStrRepr(value);
      return;
    }
    const chunks: string[] = [];
    const lines = pySplitlines(value, true);
    let ind = indent;
    let allow = allowance;
    if (level === 1) {
      ind += 1;
      allow += 1;
    }
    const maxWidth = WIDTH - ind;
    let maxWidth1 = maxWidth;
    let rep = '';
    lines.forEach((line, i) => {
      rep = pyStrRepr(line);
      if (i === lines.length - 1) maxWidth1 -= allow;
      if (cpLen(rep) <= maxWidth1) {
        chunks.push(rep);
        return;
      }
      // Alternating runs of non-space then space, as re.findall(r'\S*\s*') without the empty tail.
      const parts = line.match(/\S*\s*/g)!;
      parts.pop();
      let maxWidth2 = maxWidth;
      let current = '';
      parts.forEach((part, j) => {
        const candidate = current + part;
        if (j === parts.length - 1 && i === lines.length - 1) maxWidth2 -= allow;
        if (cpLen(pyStrRepr(candidate)) > maxWidth2) {
          if (current) chunks.push(pyStrRepr(current));
          current = part;
        } else current = candidate;
      });
      if (current) chunks.push(pyStrRepr(current));
    });
    if (chunks.length === 1) {
      this.out += rep;
      return;
    }
    if (level === 1) this.out += '(';
    chunks.forEach((chunk, i) => {
      if (i > 0) this.out += '\n' + ' '.repeat(ind);
      this.out += chunk;
    });
    if (level === 1) this.out += ')';
  }

  /** PrettyPrinter._pprint_bytes: 4-byte steps packed into literals that fit. */
  private bytes(value: Uint8Array, indent: number, allowance: number, level: number): void {
    const parens = level === 1;
    if (parens) {
      indent += 1;
      allowance += 1;
      this.out += '(';
    }
    const chunks: string[] = [];
    let width = WIDTH - indent;
    let current: Uint8Array = new Uint8Array(0);
    const last = Math.floor(value.length / 4) * 4;
    for (let i = 0; i < value.length; i += 4) {
      const part = value.subarray(i, i + 4);
      const candidate = Buffer.concat([current, part]);
      if (i === last) width -= allowance;
      if (pyBytesRepr(candidate).length > width) {
        if (current.length > 0) chunks.push(pyBytesRepr(current));
        current = part;
      } else current = candidate;
    }
    if (current.length > 0) chunks.push(pyBytesRepr(current));
    this.out += chunks.join('\n' + ' '.repeat(indent));
    if (parens) this.out += ')';
  }
}
