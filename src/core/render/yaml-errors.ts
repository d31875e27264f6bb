/**
 * libyaml's error messages (what Salt prints, as it loads YAML with libyaml's CSafeLoader) for
 * the errors the `yaml` package reports. Salt shows parser and composer errors whole (context,
 * marks, problem) and scanner errors as their problem alone (libyaml marks carry no buffer).
 */
import type { YAMLError } from 'yaml';
import type { RenderErrorCode } from './errors';

/** A 0-based position, as PyYAML's Mark holds it. */
export interface Mark {
  line: number;
  column: number;
}

/** PyYAML's `str(mark)` for text loaded from a str. */
export function markText(mark: Mark): string {
  return `  in "<unicode string>", line ${mark.line + 1}, column ${mark.column + 1}`;
}

interface Entry {
  line: number;
  column: number;
  kind: 'map' | 'seq' | 'scalar';
}

/** Where collections start on one line: the first item, plus one more after each `- `. */
function entriesOf(line: string, lineNo: number): Entry[] {
  const out: Entry[] = [];
  let col = line.length - line.trimStart().length;
  let rest = line.slice(col);
  while (rest.length > 0) {
    if (rest === '-' || rest.startsWith('- ')) {
      out.push({ line: lineNo, column: col, kind: 'seq' });
      const after = rest.slice(1);
      const skip = after.length - after.trimStart().length + 1;
      col += skip;
      rest = rest.slice(skip);
      continue;
    }
    out.push({ line: lineNo, column: col, kind: /^(?:[^#'"{[][^#]*?|'[^']*'|"[^"]*"):(?:\s|$)/.test(rest) ? 'map' : 'scalar' });
    break;
  }
  return out;
}

/**
 * The block collection that encloses a misplaced token at (line, column): libyaml reports it as
 * `while parsing a block mapping` / `did not find expected key` (or the `-` indicator for a
 * sequence), with the collection's first item as the context mark.
 */
function blockContext(text: string, at: Mark): string | null {
  const lines = text.split('\n');
  const stack: Entry[] = [];
  for (let n = 0; n < at.line; n++) {
    const line = lines[n];
    if (line.trim() === '' || line.trimStart().startsWith('#') || line.startsWith('---')) continue;
    for (const e of entriesOf(line, n)) {
      while (stack.length > 0 && stack[stack.length - 1].column > e.column) stack.pop();
      const top = stack[stack.length - 1];
      if (!top || top.column < e.column) stack.push(e);
    }
  }
  while (stack.length > 0 && stack[stack.length - 1].column > at.column) stack.pop();
  const owner = stack[stack.length - 1];
  if (!owner || owner.kind === 'scalar') return null;
  const start: Mark = { line: owner.line, column: owner.column };
  if (owner.kind === 'map') return ['while parsing a block mapping', markText(start), 'did not find expected key', markText(at)].join('\n');
  return ['while parsing a block collection', markText(start), "did not find expected '-' indicator", markText(at)].join('\n');
}

function markOf(text: string, offset: number): Mark {
  const before = text.slice(0, offset);
  const line = before.split('\n').length - 1;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) };
}

/** Salt's message for the first error the `yaml` package found in `text`. */
export function describeYamlError(text: string, errors: readonly YAMLError[]): { message: string; code: RenderErrorCode } {
  const first = errors[0];
  // The `yaml` package may point at a line's indentation; libyaml points at the token after it.
  let offset = first.pos[0];
  while (offset < text.length && text[offset] === ' ') offset++;
  const at = markOf(text, offset);
  const code: RenderErrorCode = 'YAML_SYNTAX';
  switch (first.code) {
    case 'TAB_AS_INDENT':
      return { code, message: 'found character that cannot start any token' };
    case 'MULTIPLE_DOCS': {
      const docStart = /^---/m.exec(text.slice(first.pos[0]));
      const where = markOf(text, first.pos[0] + (docStart?.index ?? 0));
      return {
        code,
        message: [
          'expected a single document in the stream',
          markText({ line: 0, column: 0 }),
          'but found another document',
          markText(where),
        ].join('\n'),
      };
    }
    case 'MISSING_CHAR':
      // eslint-disable-next-line no-restricted-syntax -- the yaml library's code is MISSING_CHAR for both; only its text tells a quote from the rest
      if (/quote/i.test(first.message)) return { code, message: 'found unexpected end of stream' };
      break;
    case 'BAD_INDENT': {
      const flow = /^Flow (sequence|map)/.exec(first.message);
      if (flow) {
        const open = flow[1] === 'sequence' ? '[' : '{';
        const start = text.lastIndexOf(open, first.pos[0]);
        const what = flow[1] === 'sequence' ? "did not find expected ',' or ']'" : "did not find expected ',' or '}'";
        // A plain scalar continues onto the next line inside a flow collection; libyaml stops at the `:` after it.
        const colon = /^[^\s:,\]}#][^:,\]}#\n]*?:(?=\s|$)/.exec(text.slice(offset));
        const problem = colon ? markOf(text, offset + colon[0].length - 1) : at;
        return {
          code,
          message: [
            `while parsing a flow ${flow[1] === 'sequence' ? 'sequence' : 'mapping'}`,
            markText(markOf(text, start)),
            what,
            markText(problem),
          ].join('\n'),
        };
      }
      break;
    }
    default:
      break;
  }
  // eslint-disable-next-line no-restricted-syntax -- the yaml library's code covers several cases; its text picks libyaml's wording
  if (first.code === 'BLOCK_AS_IMPLICIT_KEY' && /compact mappings/.test(first.message)) {
    return { code, message: 'mapping values are not allowed in this context' };
  }
  if (first.code === 'MULTILINE_IMPLICIT_KEY' && errors.length === 1) return { code, message: "could not find expected ':'" };
  const block = blockContext(text, at);
  if (block) return { code, message: block };
  return { code, message: `${first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')}\n${markText(at)}` };
}
