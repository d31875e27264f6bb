/**
 * Salt's default `nested` outputter (salt/output/nested.py), in Salt's colours when asked: dict keys sorted
 * (an OrderedDict's kept in order),
 * `----------` before a nested dict, `- x` for list items, `|_` for a list or dict inside a
 * list, 4 spaces per dict level, strings printed line by line, an empty string as nothing.
 */
import { compareCodePoints, entriesOf, isBytes, isMapping, pyNumber, unprintable } from './repr';
import { isOrdered } from './ordered';
import { pySplitlines } from './text';

/** The colours the outputter uses: Salt's ANSI sequences (src/cli/output/colors.ts), or '' for none. */
export interface NestedColors {
  LIGHT_YELLOW: string;
  GREEN: string;
  CYAN: string;
  RED: string;
  ENDC: string;
}

const NO_COLORS: NestedColors = { LIGHT_YELLOW: '', GREEN: '', CYAN: '', RED: '', ENDC: '' };

const decoder = new TextDecoder('utf-8', { fatal: true });

export interface NestedOptions {
  /** Salt's colours (default none): None/booleans/numbers light yellow, strings green, keys cyan. */
  colors?: NestedColors;
  /** The return's retcode: non-zero prints keys, `----------` and `|_` in red, as Salt's `_retcode`. */
  retcode?: number;
}

/** Lines of the nested rendering of `data`, starting at `indent` spaces. */
export function nestedLines(data: unknown, indent = 0, opts: NestedOptions = {}): string[] {
  const out: string[] = [];
  const colors = opts.colors ?? NO_COLORS;
  new Nest(colors, opts.retcode ? colors.RED : undefined).display(data, indent, '', out, 0);
  return out;
}

/**
 * Salt's `nested.output(obj)` without colours, as a state puts it in a comment (salt/states/pkg.py
 * `_nested_output`: a minion's opts set no `color`, so none is used).
 */
export function formatNested(data: unknown): string {
  return nestedLines(data).join('\n').trimEnd();
}

class Nest {
  constructor(
    private readonly c: NestedColors,
    /** Red when the retcode is not 0; otherwise each structure has its own colour. */
    private readonly failed: string | undefined,
  ) {}

  /** Salt's NestDisplay.ustring: indent, colour, prefix, message, end of colour, suffix. */
  private line(indent: number, color: string, msg: string, prefix = '', suffix = ''): string {
    return ' '.repeat(indent) + color + prefix + msg + this.c.ENDC + suffix;
  }

  display(value: unknown, indent: number, prefix: string, out: string[], depth: number): void {
    if (depth > 500) throw unprintable(value);
    const c = this.c;
    let ret = value;
    if (isBytes(ret)) {
      try {
        ret = decoder.decode(ret);
      } catch {
        // Salt prints nothing for bytes that are not UTF-8 (they match no branch below).
        return;
      }
    }
    if (ret === null || ret === undefined) out.push(this.line(indent, c.LIGHT_YELLOW, 'None', prefix));
    else if (ret === true || ret === false) out.push(this.line(indent, c.LIGHT_YELLOW, ret ? 'True' : 'False', prefix));
    else if (typeof ret === 'number' || typeof ret === 'bigint') out.push(this.line(indent, c.LIGHT_YELLOW, pyNumber(ret), prefix));
    else if (typeof ret === 'string') {
      let first = true;
      for (const text of pySplitlines(ret)) {
        // ESC is replaced so a return cannot drive the terminal (salt.output.strip_esc_sequence).
        out.push(this.line(indent, c.GREEN, text.replace(/\x1b/g, '?'), first ? prefix : ' '.repeat(prefix.length)));
        first = false;
      }
    } else if (Array.isArray(ret)) {
      for (const item of ret) {
        if (Array.isArray(item) || isMapping(item)) {
          out.push(this.line(indent, this.failed ?? c.GREEN, '|_'));
          this.display(item, indent + 2, isMapping(item) ? '' : '- ', out, depth + 1);
        } else {
          this.display(item, indent, '- ', out, depth + 1);
        }
      }
    } else if (isMapping(ret)) {
      const color = this.failed ?? c.CYAN;
      if (indent) out.push(this.line(indent, color, '----------'));
      // An OrderedDict (what Salt's YAML renderer builds) keeps its order; a dict is sorted.
      const items = isOrdered(ret) ? entriesOf(ret) : entriesOf(ret).sort((a, b) => compareCodePoints(a[0], b[0]));
      for (const [key, val] of items) {
        out.push(this.line(indent, color, key, prefix, ':'));
        this.display(val, indent + 4, '', out, depth + 1);
      }
    } else {
      throw unprintable(ret);
    }
  }
}
