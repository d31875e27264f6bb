/**
 * Salt's default `nested` outputter (salt/output/nested.py), without colour: dict keys sorted
 * (an OrderedDict's kept in order),
 * `----------` before a nested dict, `- x` for list items, `|_` for a list or dict inside a
 * list, 4 spaces per dict level, strings printed line by line, an empty string as nothing.
 */
import { compareCodePoints, entriesOf, isBytes, isMapping, isOrdered, pyNumber, pySplitlines, unprintable } from '../../core/pycompat';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Lines of the nested rendering of `data`, starting at `indent` spaces. */
export function nestedLines(data: unknown, indent = 0): string[] {
  const out: string[] = [];
  display(data, indent, '', out, 0);
  return out;
}

function line(indent: number, prefix: string, msg: string, suffix = ''): string {
  return ' '.repeat(indent) + prefix + msg + suffix;
}

function display(value: unknown, indent: number, prefix: string, out: string[], depth: number): void {
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
  if (ret === null || ret === undefined) out.push(line(indent, prefix, 'None'));
  else if (ret === true || ret === false) out.push(line(indent, prefix, ret ? 'True' : 'False'));
  else if (typeof ret === 'number' || typeof ret === 'bigint') out.push(line(indent, prefix, pyNumber(ret)));
  else if (typeof ret === 'string') {
    let first = true;
    for (const text of pySplitlines(ret)) {
      // ESC is replaced so a return cannot drive the terminal (salt.output.strip_esc_sequence).
      out.push(line(indent, first ? prefix : ' '.repeat(prefix.length), text.replace(/\x1b/g, '?')));
      first = false;
    }
  } else if (Array.isArray(ret)) {
    for (const item of ret) {
      if (Array.isArray(item) || isMapping(item)) {
        out.push(line(indent, '', '|_'));
        display(item, indent + 2, isMapping(item) ? '' : '- ', out, depth + 1);
      } else {
        display(item, indent, '- ', out, depth + 1);
      }
    }
  } else if (isMapping(ret)) {
    if (indent) out.push(line(indent, '', '----------'));
    // An OrderedDict (what Salt's YAML renderer builds) keeps its order; a dict is sorted.
    const items = isOrdered(ret) ? entriesOf(ret) : entriesOf(ret).sort((a, b) => compareCodePoints(a[0], b[0]));
    for (const [key, val] of items) {
      out.push(line(indent, prefix, key, ':'));
      display(val, indent + 4, '', out, depth + 1);
    }
  } else {
    throw unprintable(ret);
  }
}
