/**
 * Salt's `file.line` editor (salt/modules/file.py `_set_line` and the end-of-line pass of `line`),
 * as pure functions over the file's lines with their ends, quirks kept: `before`/`after`/`match`
 * are tried as a Python regex (DOTALL) and as a substring, each must name exactly one distinct
 * line where Salt asserts it, `delete` drops every copy of the first matching line, and an
 * `insert` with `location` inserts on every run (Salt's does too).
 */
import { CommandExecutionError } from 'brine/plugin';
import { regex, splitKeep } from './file-edit';
import { text } from './file-paths';

export const LINE_MODES = ['insert', 'ensure', 'delete', 'replace'] as const;

export interface LineEdit {
  content?: unknown;
  match?: unknown;
  mode: string;
  location?: unknown;
  before?: unknown;
  after?: unknown;
  indent: boolean;
}

const present = (v: unknown): boolean => v !== undefined && v !== null;
const truthy = (v: unknown): boolean => present(v) && v !== '' && v !== false && v !== 0;

/** Python's `_get_eol`: the line's ending (`\n`, `\r` or `\r\n`), or ''. */
function eolOf(line: string): string {
  return /(?:(?<!\r)\n|\r(?!\n)|\r\n)$/.exec(line)?.[0] ?? '';
}

/** `_set_line_eol`: the line stripped on the right, ended as `src` is (or with `\n`). */
const withEolOf = (src: string, line: string): string => line.replace(/\s+$/, '') + (eolOf(src) || '\n');

/** `_set_line_indent`: the line with the leading blanks of `src` in place of its own. */
function indented(src: string, line: string, indent: boolean): string {
  if (!indent) return line;
  return (/^[\t ]*/.exec(src)?.[0] ?? '') + line.replace(/^\s+/, '');
}

/** `_regex_to_static`: the lines the pattern finds (regex search or substring), or null. */
function linesFound(lines: string[], pattern: unknown): string[] | null {
  if (!lines.length || !truthy(pattern)) return null;
  const p = text(pattern);
  let re: RegExp;
  try {
    re = regex(p, ['DOTALL']);
  } catch (err) {
    throw new CommandExecutionError(`${(err as Error).message}: '${p}'`);
  }
  return lines.filter((l) => re.test(l) || l.includes(p));
}

/** `_assert_occurrence`: exactly one line found, or Salt's error naming the expression. */
function assertOne(found: string[], target: string): void {
  const n = found.length;
  const msg = n > 1 ? 'more than' : n < 1 ? 'less than' : null;
  if (msg) throw new CommandExecutionError(`Found ${msg} expected occurrences in "${target}" expression`);
}

const sameLine = (a: string, b: string): boolean => a.replace(/[\r\n]+$/, '') === b.replace(/[\r\n]+$/, '');

/** file.line's backup suffix, local time as Salt's `time.strftime("%Y-%m-%d-%H-%M-%S")`. */
export function backupStamp(d: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${two(d.getHours())}-${two(d.getMinutes())}-${two(d.getSeconds())}`;
}

/** `_set_line`: the lines (each with its end) after the edit. */
export function setLine(input: string[], o: LineEdit): string[] {
  let lines = [...input];
  const { mode, indent } = o;
  if (!(LINE_MODES as readonly string[]).includes(mode)) throw new CommandExecutionError(`Unknown mode: ${mode}`);
  if (mode !== 'delete' && !present(o.content)) throw new CommandExecutionError('Content can only be empty if mode is delete');
  const content = present(o.content) ? text(o.content) : '';
  const matchBy = !truthy(o.match) && !present(o.before) && !present(o.after) ? o.content : o.match;
  const after = linesFound(lines, o.after);
  const before = linesFound(lines, o.before);
  const match = linesFound(lines, matchBy);

  if (!lines.length && (mode === 'delete' || mode === 'replace')) return [];
  if (mode === 'delete' && match?.length) return lines.filter((l) => l !== match[0]);
  if (mode === 'replace' && match?.length) {
    const i = lines.indexOf(match[0]);
    lines[i] = indented(lines[i], content, indent);
    return lines;
  }
  if (mode === 'insert') {
    if (!present(o.before) && !present(o.after) && !present(o.location)) {
      throw new CommandExecutionError('On insert either "location" or "before/after" conditions are required.');
    }
    if (truthy(o.location)) {
      if (o.location === 'end') lines.push(lines.length ? indented(lines[lines.length - 1], content, indent) : content);
      else if (o.location === 'start') {
        if (lines.length) lines.unshift(withEolOf(lines[0], content));
        else lines = [`${content}\n`];
      }
    } else if (before?.length && after?.length) {
      assertOne(before, 'before');
      assertOne(after, 'after');
      const last = lines.indexOf(before[0]);
      lines.splice(last, 0, indented(lines[last], content, indent));
    } else if (after?.length) {
      assertOne(after, 'after');
      const i = lines.indexOf(after[0]);
      if (i + 1 >= lines.length || !sameLine(lines[i + 1], content)) lines.splice(i + 1, 0, indented(lines[i], content, indent));
    } else if (before?.length) {
      assertOne(before, 'before');
      const i = lines.indexOf(before[0]);
      // Python's lines[-1] for the first line: the last one.
      if (!sameLine(lines.at(i - 1) as string, content)) lines.splice(i, 0, indented(lines[i], content, indent));
    } else {
      throw new CommandExecutionError('Neither before or after was found in file');
    }
    return lines;
  }
  if (mode === 'ensure') {
    if (before?.length && after?.length) {
      assertOne(after, 'after');
      assertOne(before, 'before');
      const a = lines.indexOf(after[0]);
      const b = lines.indexOf(before[0]);
      if (!lines.some((l) => l.replace(/^\s+/, '') === content)) {
        if (a + 1 === b) lines.splice(a + 1, 0, indented(lines[a], content, indent));
        else if (a + 2 === b) lines[a + 1] = indented(lines[a], content, indent);
        else throw new CommandExecutionError('Found more than one line between boundaries "before" and "after".');
      }
    } else if (before?.length) {
      assertOne(before, 'before');
      const b = lines.indexOf(before[0]);
      if (b === 0 || !sameLine(lines[b - 1], content)) lines.splice(b, 0, indented(lines.at(b - 1) as string, content, indent));
    } else if (after?.length) {
      assertOne(after, 'after');
      const a = lines.indexOf(after[0]);
      if (a + 1 >= lines.length || !sameLine(lines[a + 1], content)) lines.splice(a + 1, 0, indented(lines[a], content, indent));
    } else {
      throw new CommandExecutionError('Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.');
    }
  }
  return lines;
}

/**
 * `file.line`'s edit of a whole text: the lines read with their ends (plus an empty last line
 * when the text ends with one, as Salt's simpler code wants), edited, then every line but the
 * last given an end, Salt's way (from the line before it, the first from the second).
 */
export function editLines(before: string, o: LineEdit): string {
  let body = splitKeep(before);
  if (body.length && eolOf(body[body.length - 1])) body.push('');
  if (before === '' && (o.mode === 'delete' || o.mode === 'replace')) body = [];
  body = setLine(body, o);
  for (let i = 0; i < body.length; i++) {
    if (!eolOf(body[i]) && i + 1 < body.length) body[i] = withEolOf(body[i ? i - 1 || 1 : 1], body[i]);
  }
  if (body.length && body[body.length - 1] === '') body.pop();
  return body.join('');
}
