/**
 * Salt's in-place text edits (file.replace, file.comment_line, file.blockreplace): pure functions
 * from the old text to the new one, so the module only reads, writes and keeps the backup.
 */
import { CommandExecutionError, InvocationError, compilePythonSearch } from 'brine/plugin';

/** Lines with their ends, as Python's `str.splitlines(True)`. */
export function splitKeep(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines.length === 1 && lines[0] === '' ? [] : lines;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface ReplaceOptions {
  count: number;
  flags: number | string | string[];
  appendIfNotFound: boolean;
  prependIfNotFound: boolean;
  notFoundContent?: string;
  backslashLiteral: boolean;
}

/** Salt's `re.subn` step of file.replace, with the append/prepend fallback; null when the pattern is bad. */
export function replaceText(before: string, pattern: string, repl: string, o: ReplaceOptions): { after: string; changed: boolean } {
  if (o.appendIfNotFound && o.prependIfNotFound) throw new InvocationError('Only one of append and prepend_if_not_found is permitted');
  const re = regex(pattern, o.flags);
  let n = 0;
  const template = o.backslashLiteral ? repl.replace(/\\/g, '\\\\') : repl;
  let after = before.replace(re, (...m: unknown[]) => {
    if (o.count > 0 && n >= o.count) return m[0] as string;
    n++;
    const named = typeof m[m.length - 1] === 'object' ? (m[m.length - 1] as Record<string, string | undefined>) : {};
    const groups = m.slice(0, typeof m[m.length - 1] === 'object' ? -3 : -2) as (string | undefined)[];
    return expandTemplate(template, groups, named);
  });
  let found = n > 0;
  if (o.appendIfNotFound || o.prependIfNotFound) {
    const content = o.notFoundContent ?? repl;
    const flags = typeof o.flags === 'number' ? o.flags : 8;
    if (regex(`^${escapeRegex(content)}($|(?=\r\n))`, flags).test(before)) found = true;
    if (!found) {
      if (o.prependIfNotFound) after = `${content}\n${after}`;
      else after = `${after}${after === '' || after.endsWith('\n') ? '' : '\n'}${content}\n`;
    }
  }
  return { after, changed: after !== before };
}

/** Python's `match.expand`: `\\1`, `\\g<name>`, `\\g<1>` and the string escapes of a replacement. */
export function expandTemplate(
  template: string,
  groups: readonly (string | undefined)[],
  named: Record<string, string | undefined>,
): string {
  const escapes: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', a: '\x07', f: '\f', v: '\v' };
  return template.replace(
    /\\(?:g<(\w+)>|(\d{1,2})|([\s\S]))/g,
    (_m, name: string | undefined, num: string | undefined, ch: string | undefined) => {
      if (name !== undefined) return (/^\d+$/.test(name) ? groups[Number(name)] : named[name]) ?? '';
      if (num !== undefined) return groups[Number(num)] ?? '';
      return escapes[ch as string] ?? `\\${ch}`;
    },
  );
}

/** A Python pattern compiled for searching; Salt's error text for a bad one. */
export function regex(pattern: string, flags: number | string | readonly string[]): RegExp {
  try {
    return compilePythonSearch(pattern, flags);
  } catch (err) {
    throw new CommandExecutionError((err as Error).message);
  }
}

/** The lines comment_line changes: [changed originals, their new form], and the new text. */
export function commentLines(
  text: string,
  pattern: string,
  char: string,
  comment: boolean,
): { orig: string[]; changed: string[]; after: string } {
  const core = pattern.replace(/^\^/, '').replace(/\$$/, '');
  const src = comment
    ? `${pattern.startsWith('^') ? '^' : ''}(${core})${pattern.endsWith('$') ? '$' : ''}`
    : `^${escapeRegex(char)}\\s*(${core})${pattern.endsWith('$') ? '$' : ''}`;
  const re = regex(src, 0);
  const orig: string[] = [];
  const changed: string[] = [];
  const out = splitKeep(text).map((line) => {
    re.lastIndex = 0;
    const m = re.exec(line);
    // re.match: only a match at the start counts.
    if (!m || m.index !== 0) return line;
    const next = comment ? `${char}${line}` : line.replace(new RegExp(`^(?:${escapeRegex(char)})+`), '');
    orig.push(line);
    changed.push(next);
    return next;
  });
  return { orig, changed, after: out.join('') };
}

export interface BlockOptions {
  markerStart: string;
  markerEnd: string;
  content: string;
  appendIfNotFound: boolean;
  prependIfNotFound: boolean;
  appendNewline: boolean | null;
  insertBeforeMatch?: string;
  insertAfterMatch?: string;
}

/** Salt's file.blockreplace on a text: the new text (throws Salt's errors). */
export function blockReplace(text: string, o: BlockOptions): string {
  const exclusive = [o.appendIfNotFound, o.prependIfNotFound, Boolean(o.insertBeforeMatch), Boolean(o.insertAfterMatch)];
  if (exclusive.filter(Boolean).length > 1) {
    throw new InvocationError(
      'Only one of append_if_not_found, prepend_if_not_found, insert_before_match, and insert_after_match is permitted',
    );
  }
  const appendNewline = o.appendNewline === null ? !o.content.endsWith('\n') : o.appendNewline;
  const split = o.content.split('\r\n').flatMap((l) => l.split('\n'));
  const lines = splitKeep(text);
  let linesep: string | null = null;
  const addContent = (sep: string, into: string[] = [], withStart = true, endLine = o.markerEnd): string[] => {
    const end = endLine.replace(/[\r\n]+$/, '') + sep;
    if (withStart) into.push(o.markerStart + sep);
    split.forEach((line, i) => {
      if (i !== split.length - 1) into.push(line + sep);
      else if (appendNewline) into.push(line + sep, end);
      else into.push(line + end);
    });
    return into;
  };
  let inBlock = false;
  let found = false;
  let out: string[] = [];
  for (const line of lines) {
    if (linesep === null) linesep = line.endsWith('\r\n') ? '\r\n' : '\n';
    let keep = true;
    if (line.includes(o.markerStart)) inBlock = true;
    else if (inBlock) {
      keep = false;
      const at = line.indexOf(o.markerEnd);
      if (at !== -1) {
        inBlock = false;
        found = true;
        addContent(linesep, out, false, line.slice(at));
      }
    }
    if (keep) out.push(line);
  }
  const sep = linesep ?? '\n';
  if (inBlock) throw new CommandExecutionError('Unterminated marked block. End of file reached before marker_end.');
  if (!found) {
    if (o.prependIfNotFound) {
      out = [...addContent(sep), ...out];
      found = true;
    } else if (o.appendIfNotFound) {
      if (out.length > 0 && !out[out.length - 1].endsWith(sep)) out[out.length - 1] += sep;
      addContent(sep, out);
      found = true;
    } else if (o.insertBeforeMatch || o.insertAfterMatch) {
      const re = regex((o.insertBeforeMatch ?? o.insertAfterMatch) as string, 0);
      let at = lines.findIndex((l) => {
        re.lastIndex = 0;
        return re.test(l);
      });
      if (at !== -1) {
        for (const line of addContent(sep)) {
          if (o.insertAfterMatch) at++;
          out.splice(at, 0, line);
          if (o.insertBeforeMatch) at++;
        }
        found = true;
      }
    }
  }
  if (!found) throw new CommandExecutionError('Cannot edit marked block. Markers were not found in file.');
  return out.join('');
}
