/**
 * Salt's default `nested` outputter (salt/output/nested.py), in Salt's colours when asked (keys
 * and `----------` cyan, strings green, None/bools/numbers light yellow; keys, `|_` and dashes red
 * for a return with a non-zero retcode): dict keys sorted (an OrderedDict's kept in order),
 * `----------` before a nested dict, `- x` for list items, `|_` for a list or dict inside a
 * list, 4 spaces per dict level, strings printed line by line, an empty string as nothing.
 */
import { compareCodePoints, entriesOf, isBytes, isMapping, isOrdered, pyNumber, pySplitlines, unprintable } from '../../core/pycompat';
import { saltColors, type Colors } from './colors';

const decoder = new TextDecoder('utf-8', { fatal: true });

export interface NestedOptions {
  /** Salt's colours (default none). */
  color?: boolean;
  /** The return's retcode: non-zero draws keys and separators red, as Salt's `_retcode`. */
  retcode?: number;
}

/** Lines of the nested rendering of `data`, starting at `indent` spaces. */
export function nestedLines(data: unknown, indent = 0, opts: NestedOptions = {}): string[] {
  const out: string[] = [];
  const c = saltColors(opts.color);
  const failed = (opts.retcode ?? 0) !== 0;
  const paint: Paint = { c, list: failed ? c.RED : c.GREEN, dict: failed ? c.RED : c.CYAN };
  display(data, indent, '', out, 0, paint);
  return out;
}

interface Paint {
  c: Colors;
  /** `|_` */
  list: string;
  /** `----------` and keys */
  dict: string;
}

/** Salt's ustring: indent, colour, prefix, text, end of colour, suffix. */
function line(p: Paint, indent: number, color: string, prefix: string, msg: string, suffix = ''): string {
  return ' '.repeat(indent) + color + prefix + msg + p.c.ENDC + suffix;
}

function display(value: unknown, indent: number, prefix: string, out: string[], depth: number, p: Paint): void {
  if (depth > 500) throw unprintable(value);
  let ret = value;
  if (isBytes(ret)) {
    try {
      ret = decoder.decode(ret);
    } catch {
      // Salt prints nothing for bytes that are not UTF-8 (they match no branch below).
      return;
    }
  }
  const { c } = p;
  if (ret === null || ret === undefined) out.push(line(p, indent, c.LIGHT_YELLOW, prefix, 'None'));
  else if (ret === true || ret === false) out.push(line(p, indent, c.LIGHT_YELLOW, prefix, ret ? 'True' : 'False'));
  else if (typeof ret === 'number' || typeof ret === 'bigint') out.push(line(p, indent, c.LIGHT_YELLOW, prefix, pyNumber(ret)));
  else if (typeof ret === 'string') {
    let first = true;
    for (const text of pySplitlines(ret)) {
      // ESC is replaced so a return cannot drive the terminal (salt.output.strip_esc_sequence).
      out.push(line(p, indent, c.GREEN, first ? prefix : ' '.repeat(prefix.length), text.replace(/\x1b/g, '?')));
      first = false;
    }
  } else if (Array.isArray(ret)) {
    for (const item of ret) {
      if (Array.isArray(item) || isMapping(item)) {
        out.push(line(p, indent, p.list, '', '|_'));
        display(item, indent + 2, isMapping(item) ? '' : '- ', out, depth + 1, p);
      } else {
        display(item, indent, '- ', out, depth + 1, p);
      }
    }
  } else if (isMapping(ret)) {
    if (indent) out.push(line(p, indent, p.dict, '', '----------'));
    // An OrderedDict (what Salt's YAML renderer builds) keeps its order; a dict is sorted.
    const items = isOrdered(ret) ? entriesOf(ret) : entriesOf(ret).sort((a, b) => compareCodePoints(a[0], b[0]));
    for (const [key, val] of items) {
      out.push(line(p, indent, p.dict, prefix, key, ':'));
      display(val, indent + 4, '', out, depth + 1, p);
    }
  } else {
    throw unprintable(ret);
  }
}
