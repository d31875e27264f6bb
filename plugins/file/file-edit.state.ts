/**
 * The editing states of Salt's `file` state module: append, prepend, replace, line, blockreplace,
 * comment, uncomment. The edits themselves are file-edit.ts's pure functions (shared with the
 * execution module); here each state reads, decides, and commits atomically (or, in test mode,
 * only reports).
 */
import { copyFileSync, lstatSync, mkdirSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { arg, CommandExecutionError, State, type StateContext, type StateReturn } from 'brine/plugin';
import { blockReplace, commentLines, regex, replaceText, splitKeep } from './file-edit';
import { backupOf, expandUser, isText, stats } from './file-paths';
import { backupStamp, editLines, LINE_MODES } from './file-line';
import { atomicWrite, fail, isFile, lexists, ownerOf } from './file-state-kit';
import { appendDiff, unifiedDiff } from './unified-diff';

const NAME = { name: arg.string() };
/** The arguments append, prepend and blockreplace take to read their text from template files. */
const SOURCES = {
  source: arg.string({ optional: true }),
  source_hash: arg.any({ optional: true }),
  template: arg.string({ default: 'jinja' }),
  sources: arg.list({ optional: true }),
  source_hashes: arg.list({ optional: true }),
  defaults: arg.dict({ optional: true }),
  context: arg.dict({ optional: true }),
};
interface SourcesArgs {
  source?: string;
  source_hash?: unknown;
  template: string;
  sources?: unknown[];
  source_hashes?: unknown[];
  defaults?: Record<string, unknown>;
  context?: Record<string, unknown>;
}

/**
 * Salt's `_unify_sources_and_hashes` + `_get_template_texts`: the rendered text of each source
 * (null when there are none), or the failed return Salt gives.
 */
async function templateTexts(a: SourcesArgs, ctx: StateContext): Promise<string[] | StateReturn | null> {
  const err = (name: string, comment: string): StateReturn => ({ name, changes: {}, result: false, comment });
  if (a.source && a.sources && a.sources.length > 0) return err('', 'source and sources are mutually exclusive');
  if (a.source_hash && a.source_hashes && a.source_hashes.length > 0)
    return err('', 'source_hash and source_hashes are mutually exclusive');
  const list = a.source ? [a.source] : (a.sources ?? []).map(String);
  if (list.length === 0) return null;
  const texts: string[] = [];
  for (const source of list) {
    const local = ctx.cacheFile ? await ctx.cacheFile(source) : null;
    if (!local) return err(source, `Failed to load template file ${source}`);
    let text: string;
    if (!a.template) text = readFileSync(local, 'utf8');
    else if (a.template !== 'jinja')
      throw new CommandExecutionError(`The template renderer '${a.template}' is not available (brine renders jinja)`);
    else {
      if (!ctx.renderTemplate)
        throw new CommandExecutionError('templates need the state runner: run the state through state.apply / state.sls');
      const name = source.startsWith('salt://') ? source.slice('salt://'.length).split('?')[0] : source;
      text = await ctx.renderTemplate(local, name, { ...(a.defaults ?? {}), ...(a.context ?? {}) });
    }
    if (text === '') return err(source, `Failed to read rendered template file ${local} (${source})`);
    texts.push(text);
  }
  return texts;
}

/** Salt's `_validate_str_list`: a string, or each item of a list as a string. */
export function strList(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : String(x)));
  return [String(v)];
}

/** Python's `str.splitlines()` (no ends). */
export const splitLines = (text: string): string[] => splitKeep(text).map((l) => l.replace(/\r?\n$|\r$/, ''));

/**
 * Salt's `build_whitespace_split_regex`: the chunk's words in order, any whitespace (line breaks
 * too) allowed between them, anchored to whole lines.
 */
export function whitespaceSplitRegex(text: string): string {
  const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  let body = '';
  for (const line of splitLines(text)) {
    body += `(?:[\\s]+)?${line.split(/\s+/).filter(Boolean).map(esc).join('(?:[\\s]+)?')}`;
  }
  return `^${body}$`;
}

/** Salt's `_check_file`: '' when the path is absolute and exists, else why not. */
export function checkFile(name: string): string {
  if (!isAbsolute(name)) return `Specified file ${name} is not an absolute path`;
  if (!lexists(name)) return `${name}: file not found`;
  return '';
}

/** Commit new text over a file atomically, keeping its mode and owner; `backup` is a suffix copy of the old one. */
export function commitText(path: string, after: string, backup: string | false = false): void {
  const st = statSync(path);
  if (backup) copyFileSync(path, `${path}${backup}`);
  atomicWrite(path, after, st.mode & 0o7777, ownerOf(path));
}

/** The diff a text state reports: Salt's difflib over lines with their ends. */
const diffOf = (before: string, after: string): string => (isBinaryText(before) ? 'Replace binary file' : unifiedDiff(before, after));
const isBinaryText = (t: string): boolean => t.includes('\0');

/**
 * Salt's `touch` state. Used by append/prepend for a missing file as Salt does; in test mode it
 * only reports.
 */
export function touchState(name: string, atime: unknown, mtime: unknown, makedirs: boolean, test: boolean): StateReturn {
  const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
  if (!name) return fail(ret, 'Must provide name to file.touch');
  if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
  if (test) {
    if (!lexists(name)) {
      ret.result = null;
      ret.comment = `File ${name} is set to be created`;
      ret.changes = { new: name };
      return ret;
    }
    const st = stats(name, false);
    const differs = (want: unknown, have: unknown): boolean => want !== undefined && want !== null && String(want) !== String(have);
    if (differs(atime, st.atime) || differs(mtime, st.mtime)) {
      ret.result = null;
      ret.comment = `Times set to be updated on file ${name}`;
      ret.changes = { touched: name };
    } else {
      ret.comment = `File ${name} exists and has the correct times`;
    }
    return ret;
  }
  if (makedirs) mkdirSync(dirname(name), { recursive: true });
  if (!lexists(dirname(name)) || !lstatSync(dirname(name)).isDirectory()) return fail(ret, `Directory not present to touch file ${name}`);
  const extant = lexists(name);
  const time = (v: unknown): number | undefined => (v === undefined || v === null || v === '' ? undefined : Number(v));
  if (!extant) atomicWrite(name, '', 0o644 & ~process.umask());
  const now = Date.now() / 1000;
  utimesSync(name, time(atime) ?? now, time(mtime) ?? now);
  if (!extant) {
    ret.comment = `Created empty file ${name}`;
    ret.changes = { new: name };
  } else {
    ret.comment = `Updated times on ${statSync(name).isDirectory() ? 'directory' : 'file'} ${name}`;
    ret.changes = { touched: name };
  }
  return ret;
}

/** Salt's `file` states that edit text in place. `FileStates` extends this class. */
export class FileEditStates {
  /** append/prepend: the directory and the file exist (made when allowed); a return when the state stops here. */
  private ensureTarget(name: string, makedirs: boolean, ret: StateReturn, test: boolean): StateReturn | null {
    if (makedirs) {
      if (test) {
        ret.comment = `Directory ${dirname(name)} is set to be updated`;
        ret.result = null;
      } else mkdirSync(dirname(name), { recursive: true });
    }
    const missing = checkFile(name);
    if (missing) {
      const touched = touchState(name, null, null, makedirs, test);
      if (test) return touched;
      if (checkFile(name)) return fail(ret, missing);
    }
    return null;
  }

  @State({
    summary: 'Ensure that some text appears at the end of a file',
    description: 'Each chunk of text is appended unless it is already in the file (whitespace ignored when ignore_whitespace).',
    examples: ['salt-call state.single file.append /etc/motd text=hello'],
    args: {
      ...NAME,
      text: arg.any({ optional: true }),
      makedirs: arg.boolean({ default: false }),
      ...SOURCES,
      ignore_whitespace: arg.boolean({ default: true }),
    },
    kwargs: true,
  })
  async append(
    args: { name: string; text?: unknown; makedirs: boolean; ignore_whitespace: boolean } & SourcesArgs,
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.append');
    const fromSources = await templateTexts(args, ctx);
    if (fromSources && !Array.isArray(fromSources) && fromSources.name === '') return fail(ret, String(fromSources.comment));
    const stop = this.ensureTarget(name, args.makedirs, ret, ctx.test);
    if (stop) return stop;
    if (fromSources && !Array.isArray(fromSources)) return fromSources;
    const before = readFileSync(name, 'utf8');
    const add: string[] = [];
    for (const chunk of fromSources ?? strList(args.text)) {
      const pattern = args.ignore_whitespace ? whitespaceSplitRegex(chunk) : chunk;
      if (regex(pattern, 8).test(before)) continue;
      add.push(...splitLines(chunk));
    }
    const after =
      add.length === 0 ? before : (before === '' || before.endsWith('\n') ? before : `${before}\n`) + add.map((l) => `${l}\n`).join('');
    if (after !== before) ret.changes = { diff: isText(name) ? appendDiff(before, after) : 'Replace binary file' };
    ret.result = true;
    if (add.length === 0) {
      ret.comment = `File ${name} is in correct state`;
      return ret;
    }
    if (ctx.test) {
      ret.result = null;
      ret.comment = `File ${name} is set to be updated`;
      return ret;
    }
    commitText(name, after);
    ret.comment = `Appended ${add.length} lines`;
    return ret;
  }

  @State({
    summary: 'Ensure that some text appears at the beginning of a file',
    description: 'header=True compares the first lines verbatim instead of searching the whole file.',
    examples: ['salt-call state.single file.prepend /etc/motd text="# managed by salt"'],
    args: {
      ...NAME,
      text: arg.any({ optional: true }),
      makedirs: arg.boolean({ default: false }),
      ...SOURCES,
      header: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async prepend(
    args: { name: string; text?: unknown; makedirs: boolean; header: boolean } & SourcesArgs,
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.prepend');
    const fromSources = await templateTexts(args, ctx);
    if (fromSources && !Array.isArray(fromSources) && fromSources.name === '') return fail(ret, String(fromSources.comment));
    const stop = this.ensureTarget(name, args.makedirs, ret, ctx.test);
    if (stop) return stop;
    if (fromSources && !Array.isArray(fromSources)) return fromSources;
    const before = readFileSync(name, 'utf8');
    const preface: string[] = [];
    for (const chunk of fromSources ?? strList(args.text)) {
      if (!args.header && regex(whitespaceSplitRegex(chunk), 8).test(before)) continue;
      preface.push(...splitLines(chunk));
    }
    let count = preface.length;
    // header: only when the file's first lines are not already the text.
    if (args.header && splitLines(splitKeep(before).slice(0, preface.length).join('')).join('\n') === preface.join('\n')) count = 0;
    const after = count === 0 ? before : preface.map((l) => `${l}\n`).join('') + before;
    if (after !== before) ret.changes = { diff: diffOf(before, after) };
    if (ctx.test) {
      if (after !== before) {
        ret.result = null;
        ret.comment = `File ${name} is set to be updated`;
      } else {
        ret.result = true;
        ret.comment = `File ${name} is in correct state`;
      }
      return ret;
    }
    if (after !== before) commitText(name, after);
    ret.comment = count ? `Prepended ${count} lines` : `File ${name} is in correct state`;
    ret.result = true;
    return ret;
  }

  @State({
    summary: 'Maintain an edit in a file by regular expression',
    args: {
      ...NAME,
      pattern: arg.string(),
      repl: arg.string(),
      count: arg.integer({ default: 0, min: 0 }),
      flags: arg.any({ default: 8 }),
      append_if_not_found: arg.boolean({ default: false }),
      prepend_if_not_found: arg.boolean({ default: false }),
      not_found_content: arg.string({ optional: true }),
      backup: arg.any({ default: '.bak' }),
      show_changes: arg.boolean({ default: true }),
      ignore_if_missing: arg.boolean({ default: false }),
      backslash_literal: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async replace(
    args: {
      name: string;
      pattern: string;
      repl: string;
      count: number;
      flags: unknown;
      append_if_not_found: boolean;
      prepend_if_not_found: boolean;
      not_found_content?: string;
      backup: unknown;
      show_changes: boolean;
      ignore_if_missing: boolean;
      backslash_literal: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const missing = checkFile(name);
    if (missing) {
      if (args.ignore_if_missing && !lexists(name)) {
        ret.comment = 'No changes needed to be made';
        return ret;
      }
      return fail(ret, missing);
    }
    const before = readFileSync(name, 'utf8');
    const { after, changed } = replaceText(before, args.pattern, args.repl, {
      count: args.count,
      flags: args.flags as number | string | string[],
      appendIfNotFound: args.append_if_not_found,
      prependIfNotFound: args.prepend_if_not_found,
      notFoundContent: args.not_found_content,
      backslashLiteral: args.backslash_literal,
    });
    if (!changed) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    ret.changes = { diff: args.show_changes ? unifiedDiff(before, after) : true };
    if (ctx.test) {
      ret.result = null;
      ret.comment = 'Changes would have been made';
      return ret;
    }
    commitText(name, after, backupOf(args.backup));
    ret.comment = 'Changes were made';
    return ret;
  }

  @State({
    summary: 'Line-focused editing of a file',
    description: 'mode is insert, ensure, replace or delete.',
    args: {
      ...NAME,
      content: arg.any({ optional: true }),
      match: arg.any({ optional: true }),
      mode: arg.string({ optional: true }),
      location: arg.string({ optional: true }),
      before: arg.any({ optional: true }),
      after: arg.any({ optional: true }),
      show_changes: arg.boolean({ default: true }),
      backup: arg.boolean({ default: false }),
      indent: arg.boolean({ default: true }),
    },
    kwargs: true,
  })
  async line(
    args: {
      name: string;
      content?: unknown;
      match?: unknown;
      mode?: string;
      location?: string;
      before?: unknown;
      after?: unknown;
      show_changes: boolean;
      backup: boolean;
      indent: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const mode = String(args.mode ?? '').toLowerCase();
    if (!(LINE_MODES as readonly string[]).includes(mode)) {
      return fail(ret, mode ? `Unknown mode: ${mode}` : 'Mode was not defined. How to process the file?');
    }
    if (!isFile(name)) return fail(ret, `File "${name}" doesn't exist`);
    if (mode !== 'delete' && (args.content === undefined || args.content === null)) {
      return fail(ret, "Content can only be empty if mode is ['delete']");
    }
    const before = readFileSync(name, 'utf8');
    let after: string;
    try {
      after = editLines(before, { ...args, mode });
    } catch (err) {
      if (err instanceof CommandExecutionError) return fail(ret, err.message);
      throw err;
    }
    if (after === before) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    ret.changes = { diff: args.show_changes ? unifiedDiff(before, after) : true };
    if (ctx.test) {
      ret.result = null;
      ret.comment = 'Changes would be made';
      return ret;
    }
    commitText(name, after, args.backup ? `.${backupStamp(new Date())}` : false);
    ret.comment = 'Changes were made';
    return ret;
  }

  @State({
    summary: 'Maintain a block of text between two marker lines',
    examples: ["salt-call state.single file.blockreplace /etc/hosts marker_start='# START' marker_end='# END' content='10.0.0.1 db'"],
    args: {
      ...NAME,
      marker_start: arg.string({ default: '#-- start managed zone --' }),
      marker_end: arg.string({ default: '#-- end managed zone --' }),
      ...SOURCES,
      content: arg.any({ default: '' }),
      append_if_not_found: arg.boolean({ default: false }),
      prepend_if_not_found: arg.boolean({ default: false }),
      backup: arg.any({ default: '.bak' }),
      show_changes: arg.boolean({ default: true }),
      append_newline: arg.any({ optional: true }),
      insert_before_match: arg.string({ optional: true }),
      insert_after_match: arg.string({ optional: true }),
    },
    kwargs: true,
  })
  async blockreplace(
    args: {
      name: string;
      marker_start: string;
      marker_end: string;
      content: unknown;
      append_if_not_found: boolean;
      prepend_if_not_found: boolean;
      backup: unknown;
      show_changes: boolean;
      append_newline?: unknown;
      insert_before_match?: string;
      insert_after_match?: string;
    } & SourcesArgs,
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.blockreplace');
    const fromSources = await templateTexts(args, ctx);
    if (fromSources && !Array.isArray(fromSources) && fromSources.name === '') return fail(ret, String(fromSources.comment));
    const missing = checkFile(name);
    if (missing) return fail(ret, missing);
    if (fromSources && !Array.isArray(fromSources)) return fromSources;
    let content = args.content === null || args.content === undefined ? '' : String(args.content);
    if (fromSources) content += fromSources.join('');
    const before = readFileSync(name, 'utf8');
    let after: string;
    try {
      const nl = args.append_newline;
      after = blockReplace(before, {
        markerStart: args.marker_start,
        markerEnd: args.marker_end,
        content,
        appendIfNotFound: args.append_if_not_found,
        prependIfNotFound: args.prepend_if_not_found,
        appendNewline: nl === undefined || nl === null ? null : nl === true || nl === 'True' || nl === 'true',
        insertBeforeMatch: args.insert_before_match,
        insertAfterMatch: args.insert_after_match,
      });
    } catch (err) {
      ret.comment = `Encountered error managing block: ${(err as Error).message}. See the log for details.`;
      return ret;
    }
    if (after === before) {
      ret.result = true;
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    ret.changes = { diff: args.show_changes ? unifiedDiff(before, after) : true };
    if (ctx.test) {
      ret.result = null;
      ret.comment = 'Changes would be made';
      return ret;
    }
    commitText(name, after, backupOf(args.backup));
    ret.result = true;
    ret.comment = 'Changes were made';
    return ret;
  }

  @State({
    summary: 'Comment out the lines of a file that match a regular expression',
    examples: ["salt-call state.single file.comment /etc/fstab regex='^bind 127.0.0.1'"],
    args: {
      ...NAME,
      regex: arg.string(),
      char: arg.string({ default: '#' }),
      backup: arg.any({ default: '.bak' }),
      ignore_missing: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async comment(
    args: { name: string; regex: string; char: string; backup: unknown; ignore_missing: boolean },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.comment');
    const missing = checkFile(name);
    if (missing) return fail(ret, missing);
    // Salt strips a leading inline flag group, ^ and $ to search for the bare pattern.
    const unanchored = args.regex.replace(/^(\(\?[iLmsux]\))?\^?([\s\S]*?)\$?$/, '$2');
    const charRe = args.char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const before = readFileSync(name, 'utf8');
    if (!regex(`^(?!\\s*${charRe})\\s*${unanchored}`, 8).test(before)) {
      ret.result = true;
      if (regex(`${charRe}${unanchored}`, 8).test(before)) ret.comment = 'Pattern already commented';
      else if (args.ignore_missing) ret.comment = 'Pattern not found and ignore_missing set to True';
      else return fail(ret, `${unanchored}: Pattern not found`);
      return ret;
    }
    if (ctx.test) {
      ret.changes = { [name]: 'updated' };
      ret.comment = `File ${name} is set to be updated`;
      ret.result = null;
      return ret;
    }
    const { after } = commentLines(before, args.regex, args.char, true);
    if (after !== before) commitText(name, after, backupOf(args.backup));
    ret.result = regex(unanchored, 8).test(after);
    if (after !== before) ret.changes = { diff: diffOf(before, after) };
    ret.comment = ret.result ? 'Commented lines successfully' : 'Expected commented lines not found';
    return ret;
  }

  @State({
    summary: 'Uncomment the lines of a file that match a regular expression',
    examples: ["salt-call state.single file.uncomment /etc/adduser.conf regex='EXTRA_GROUPS'"],
    args: { ...NAME, regex: arg.string(), char: arg.string({ default: '#' }), backup: arg.any({ default: '.bak' }) },
    kwargs: true,
  })
  async uncomment(args: { name: string; regex: string; char: string; backup: unknown }, ctx: StateContext): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: false, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.uncomment');
    const missing = checkFile(name);
    if (missing) return fail(ret, missing);
    const bare = args.regex.replace(/^\^+/, '');
    const before = readFileSync(name, 'utf8');
    if (!regex(`${args.char}[ \t]*${bare}`, 8).test(before)) {
      if (regex(`^[ \t]*${bare}`, 8).test(before)) {
        ret.comment = 'Pattern already uncommented';
        ret.result = true;
        return ret;
      }
      return fail(ret, `${args.regex}: Pattern not found`);
    }
    if (ctx.test) {
      ret.changes = { [name]: 'updated' };
      ret.comment = `File ${name} is set to be updated`;
      ret.result = null;
      return ret;
    }
    const { after } = commentLines(before, args.regex, args.char, false);
    if (after !== before) commitText(name, after, backupOf(args.backup));
    ret.result = regex(`^[ \t]*${bare}`, 8).test(after);
    if (after !== before) ret.changes = { diff: diffOf(before, after) };
    ret.comment = ret.result ? 'Uncommented lines successfully' : 'Expected uncommented lines not found';
    return ret;
  }
}
