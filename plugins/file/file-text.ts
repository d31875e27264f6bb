import { appendFileSync, constants, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { CommandExecutionError, Fn, IShell, InvocationError, arg, fnmatch } from 'brine/plugin';
import { backupOf, expandUser, guard, isText, linesOf, realpathIfExists, rewrite, text } from './file-paths';
import { blockReplace, commentLines, regex, replaceText, splitKeep } from './file-edit';
import { backupStamp, editLines, LINE_MODES } from './file-line';
import { atomicWrite, isFile, ownerOf } from './file-state-kit';
import { unifiedDiff } from './unified-diff';

/** Salt's `get_diff`: empty when nothing changed (difflib then writes no header either). */
const diffOf = (before: string, after: string): string => (before === after ? '' : unifiedDiff(before, after));

const PATH = { path: arg.string({ nonEmpty: true }) };

/**
 * The text functions of the file module (write, append, replace, comment, blockreplace, sed, ...).
 * `FileModule` extends this class, so they are `file.*` functions like the rest.
 */
export class FileTextFunctions {
  constructor(protected readonly shell: IShell) {}

  @Fn({
    summary: 'Write text to a file, overwriting any existing contents; each argument is one line',
    examples: ["salt '*' file.write /etc/motd 'With all thine offerings thou shalt offer salt.'"],
    args: PATH,
    varargs: 'lines',
    kwargs: true,
  })
  write({ path, lines, kwargs }: { path: string; lines: unknown[]; kwargs: Record<string, unknown> }): string {
    const p = expandUser(path);
    const all = linesOf(lines, kwargs);
    guard(() => writeFileSync(p, all.map((l) => `${text(l)}\n`).join('')), p);
    return `Wrote ${all.length} lines to "${p}"`;
  }

  @Fn({
    summary: 'Append text to the end of a file, after a newline if the file lacks its last one',
    examples: ["salt '*' file.append /etc/motd 'line one' 'line two'"],
    args: PATH,
    varargs: 'lines',
    kwargs: true,
  })
  append({ path, lines, kwargs }: { path: string; lines: unknown[]; kwargs: Record<string, unknown> }): string {
    const p = expandUser(path);
    const all = linesOf(lines, kwargs);
    guard(() => {
      const current = readFileSync(p, 'utf8');
      const lead = current !== '' && !current.endsWith('\n') ? '\n' : '';
      appendFileSync(p, lead + all.map((l) => `${text(l)}\n`).join(''));
    }, p);
    return `Wrote ${all.length} lines to "${p}"`;
  }

  @Fn({
    summary: 'Prepend text to the beginning of a file',
    examples: ["salt '*' file.prepend /etc/motd 'first line'"],
    args: PATH,
    varargs: 'lines',
    kwargs: true,
  })
  prepend({ path, lines, kwargs }: { path: string; lines: unknown[]; kwargs: Record<string, unknown> }): string {
    const p = expandUser(path);
    const all = linesOf(lines, kwargs);
    const current = existsSync(p) ? readFileSync(p, 'utf8') : '';
    guard(() => writeFileSync(p, all.map((l) => `${text(l)}\n`).join('') + current), p);
    return `Prepended ${all.length} lines to "${p}"`;
  }

  @Fn({
    summary: 'Replace occurrences of a Python regular expression in a file; returns a diff (show_changes) or whether it changed',
    examples: ["salt '*' file.replace /etc/httpd/httpd.conf pattern='LogLevel warn' repl='LogLevel info'"],
    args: {
      path: arg.string({ nonEmpty: true }),
      pattern: arg.string(),
      repl: arg.string(),
      count: arg.integer({ default: 0 }),
      flags: arg.any({ default: 8 }),
      bufsize: arg.any({ default: 1 }),
      append_if_not_found: arg.boolean({ default: false }),
      prepend_if_not_found: arg.boolean({ default: false }),
      not_found_content: arg.string({ optional: true }),
      backup: arg.any({ default: '.bak' }),
      dry_run: arg.boolean({ default: false }),
      search_only: arg.boolean({ default: false }),
      show_changes: arg.boolean({ default: true }),
      ignore_if_missing: arg.boolean({ default: false }),
      preserve_inode: arg.boolean({ default: true }),
      backslash_literal: arg.boolean({ default: false }),
    },
  })
  replace(a: {
    path: string;
    pattern: string;
    repl: string;
    count: number;
    flags: unknown;
    append_if_not_found: boolean;
    prepend_if_not_found: boolean;
    not_found_content?: string;
    backup: unknown;
    dry_run: boolean;
    search_only: boolean;
    show_changes: boolean;
    ignore_if_missing: boolean;
    backslash_literal: boolean;
  }): string | boolean {
    const p = realpathIfExists(expandUser(a.path));
    if (!existsSync(p)) {
      if (a.ignore_if_missing) return false;
      throw new InvocationError(`File not found: ${p}`);
    }
    if (!isText(p)) throw new InvocationError(`Cannot perform string replacements on a binary file: ${p}`);
    if (a.search_only && (a.append_if_not_found || a.prepend_if_not_found)) {
      throw new InvocationError('search_only cannot be used with append/prepend_if_not_found');
    }
    const flags = a.flags as number | string | string[];
    const before = readFileSync(p, 'utf8');
    if (a.search_only) return regex(a.pattern, flags).test(before);
    const { after, changed } = replaceText(before, a.pattern, a.repl, {
      count: a.count,
      flags,
      appendIfNotFound: a.append_if_not_found,
      prependIfNotFound: a.prepend_if_not_found,
      notFoundContent: a.not_found_content,
      backslashLiteral: a.backslash_literal,
    });
    if (changed && !a.dry_run) rewrite(p, before, after, backupOf(a.backup));
    const diff = diffOf(before, after);
    return a.show_changes ? diff : changed && diff !== '';
  }

  @Fn({
    summary: 'Whether a Python regular expression matches the file (flags: 8 = MULTILINE)',
    examples: ["salt '*' file.search /etc/crontab 'mymaintenance.sh'"],
    args: {
      path: arg.string({ nonEmpty: true }),
      pattern: arg.string(),
      flags: arg.any({ default: 8 }),
      bufsize: arg.any({ default: 1 }),
      ignore_if_missing: arg.boolean({ default: false }),
      multiline: arg.boolean({ default: false }),
    },
  })
  search(a: { path: string; pattern: string; flags: unknown; ignore_if_missing: boolean; multiline: boolean }): boolean {
    let flags = a.flags as number | string | string[];
    if (a.multiline) flags = typeof flags === 'number' ? flags | 8 : [...(typeof flags === 'string' ? [flags] : flags), 'MULTILINE'];
    const p = realpathIfExists(expandUser(a.path));
    if (!existsSync(p)) {
      if (a.ignore_if_missing) return false;
      throw new InvocationError(`File not found: ${p}`);
    }
    return regex(a.pattern, flags).test(readFileSync(p, 'utf8'));
  }

  @Fn({
    summary: 'Whether the file contains the text (stripped)',
    examples: ["salt '*' file.contains /etc/crontab 'mymaintenance.sh'"],
    args: { path: arg.string({ nonEmpty: true }), text: arg.any() },
  })
  contains({ path, text: t }: { path: string; text: unknown }): boolean {
    const p = expandUser(path);
    try {
      return readFileSync(p, 'utf8').includes(text(t).trim());
    } catch {
      return false;
    }
  }

  @Fn({
    summary: 'Whether a line of the file matches the regular expression (lchar: characters stripped from the left first)',
    examples: ["salt '*' file.contains_regex /etc/crontab '^maintenance'"],
    args: { path: arg.string({ nonEmpty: true }), regex: arg.string(), lchar: arg.string({ default: '' }) },
  })
  contains_regex({ path, regex: pattern, lchar }: { path: string; regex: string; lchar: string }): boolean {
    const p = expandUser(path);
    if (!existsSync(p)) return false;
    const re = regex(pattern, 0);
    return splitKeep(readFileSync(p, 'utf8')).some((line) => {
      re.lastIndex = 0;
      const l = lchar ? line.replace(new RegExp(`^[${lchar.replace(/[\]\\^-]/g, '\\$&')}]+`), '') : line;
      return re.test(l);
    });
  }

  @Fn({
    summary: 'Whether a line of the file matches the glob',
    examples: ["salt '*' file.contains_glob /etc/foobar '*cheese*'"],
    args: { path: arg.string({ nonEmpty: true }), glob_expr: arg.string() },
  })
  contains_glob({ path, glob_expr }: { path: string; glob_expr: string }): boolean {
    const p = expandUser(path);
    if (!existsSync(p)) return false;
    return splitKeep(readFileSync(p, 'utf8')).some((line) => fnmatch(glob_expr, line));
  }

  @Fn({
    summary: 'Comment out (cmnt=True) or uncomment the lines matching regex; returns the diff, or False when none matched',
    examples: ["salt '*' file.comment_line '/etc/modules' '^pcspkr'"],
    args: {
      path: arg.string({ nonEmpty: true }),
      regex: arg.string(),
      char: arg.string({ default: '#' }),
      cmnt: arg.boolean({ default: true }),
      backup: arg.any({ default: '.bak' }),
    },
  })
  comment_line({
    path,
    regex: pattern,
    char,
    cmnt,
    backup,
  }: {
    path: string;
    regex: string;
    char: string;
    cmnt: boolean;
    backup: unknown;
  }): string | boolean {
    const p = realpathIfExists(expandUser(path));
    if (!statSync(p, { throwIfNoEntry: false })?.isFile()) throw new InvocationError(`File not found: ${p}`);
    if (!isText(p)) throw new InvocationError(`Cannot perform string replacements on a binary file: ${p}`);
    const before = readFileSync(p, 'utf8');
    const { orig, changed, after } = commentLines(before, pattern, char, cmnt);
    if (orig.length === 0) return false;
    rewrite(p, before, after, backupOf(backup));
    return diffOf(orig.join(''), changed.join(''));
  }

  @Fn({
    summary: 'Comment out the lines matching regex (file.comment_line with cmnt=True)',
    examples: ["salt '*' file.comment /etc/modules pcspkr"],
    args: {
      path: arg.string({ nonEmpty: true }),
      regex: arg.string(),
      char: arg.string({ default: '#' }),
      backup: arg.any({ default: '.bak' }),
    },
  })
  comment({ path, regex: pattern, char, backup }: { path: string; regex: string; char: string; backup: unknown }): string | boolean {
    return this.comment_line({ path, regex: pattern, char, cmnt: true, backup });
  }

  @Fn({
    summary: 'Uncomment the lines matching regex (file.comment_line with cmnt=False)',
    examples: ["salt '*' file.uncomment /etc/hosts.deny 'ALL: PARANOID'"],
    args: {
      path: arg.string({ nonEmpty: true }),
      regex: arg.string(),
      char: arg.string({ default: '#' }),
      backup: arg.any({ default: '.bak' }),
    },
  })
  uncomment({ path, regex: pattern, char, backup }: { path: string; regex: string; char: string; backup: unknown }): string | boolean {
    return this.comment_line({ path, regex: pattern, char, cmnt: false, backup });
  }

  @Fn({
    summary: 'Replace the content of a block delimited by marker lines; returns the diff (show_changes) or whether it changed',
    examples: [
      "salt '*' file.blockreplace /etc/hosts '#-- start managed zone foobar : DO NOT EDIT --' '#-- end managed zone foobar --' $'10.0.1.1 foo.foobar\\n10.0.1.2 bar.foobar' True",
    ],
    args: {
      path: arg.string({ nonEmpty: true }),
      marker_start: arg.string({ default: '#-- start managed zone --' }),
      marker_end: arg.string({ default: '#-- end managed zone --' }),
      content: arg.string({ default: '' }),
      append_if_not_found: arg.boolean({ default: false }),
      prepend_if_not_found: arg.boolean({ default: false }),
      backup: arg.any({ default: '.bak' }),
      dry_run: arg.boolean({ default: false }),
      show_changes: arg.boolean({ default: true }),
      append_newline: arg.any({ default: false }),
      insert_before_match: arg.string({ optional: true }),
      insert_after_match: arg.string({ optional: true }),
    },
  })
  blockreplace(a: {
    path: string;
    marker_start: string;
    marker_end: string;
    content: string;
    append_if_not_found: boolean;
    prepend_if_not_found: boolean;
    backup: unknown;
    dry_run: boolean;
    show_changes: boolean;
    append_newline: unknown;
    insert_before_match?: string;
    insert_after_match?: string;
  }): string | boolean {
    const p = expandUser(a.path);
    if (!existsSync(p)) throw new InvocationError(`File not found: ${p}`);
    if (!isText(p)) throw new InvocationError(`Cannot perform string replacements on a binary file: ${p}`);
    const before = readFileSync(p, 'utf8');
    const after = blockReplace(before, {
      markerStart: a.marker_start,
      markerEnd: a.marker_end,
      content: a.content,
      appendIfNotFound: a.append_if_not_found,
      prependIfNotFound: a.prepend_if_not_found,
      appendNewline:
        a.append_newline === null ? null : a.append_newline === true || a.append_newline === 'True' || a.append_newline === 'true',
      insertBeforeMatch: a.insert_before_match,
      insertAfterMatch: a.insert_after_match,
    });
    const diff = diffOf(before, after);
    if (diff !== '' && !a.dry_run) rewrite(p, before, after, backupOf(a.backup));
    return a.show_changes ? diff : diff !== '';
  }

  @Fn({
    summary:
      'Line-focused editing of a file: insert, ensure, replace or delete one line; returns the diff (show_changes) or whether it changed',
    description:
      'match, before and after are tried as a Python regular expression and as a fragment of the line; before and after must each find exactly one line. ' +
      'mode=insert needs location (start or end) or before/after. backup=True keeps a copy named path.YYYY-MM-DD-HH-MM-SS.',
    examples: [
      'salt \'*\' file.line /etc/nsswitch.conf "networks:\\tfiles dns" after="hosts:.*?" mode=ensure',
      "salt '*' file.line /path/to/file content=CREATEMAIL_SPOOL=no match=CREATE_MAIL_SPOOL=yes mode=replace",
    ],
    args: {
      path: arg.string({ nonEmpty: true }),
      content: arg.any({ optional: true }),
      match: arg.any({ optional: true }),
      mode: arg.any({ optional: true }),
      location: arg.any({ optional: true }),
      before: arg.any({ optional: true }),
      after: arg.any({ optional: true }),
      show_changes: arg.boolean({ default: true }),
      backup: arg.boolean({ default: false }),
      quiet: arg.boolean({ default: false }),
      indent: arg.boolean({ default: true }),
    },
  })
  line(a: {
    path: string;
    content?: unknown;
    match?: unknown;
    mode?: unknown;
    location?: unknown;
    before?: unknown;
    after?: unknown;
    show_changes: boolean;
    backup: boolean;
    quiet: boolean;
    indent: boolean;
  }): string | boolean {
    const p = realpathIfExists(expandUser(a.path));
    if (!isFile(p)) {
      if (a.quiet) return false;
      throw new CommandExecutionError(`File "${p}" does not exists or is not a file.`);
    }
    const mode = a.mode === undefined || a.mode === null || a.mode === '' ? null : text(a.mode).toLowerCase();
    if (mode === null) throw new CommandExecutionError('Mode was not defined. How to process the file?');
    if (!(LINE_MODES as readonly string[]).includes(mode)) throw new CommandExecutionError(`Unknown mode: "${mode}"`);
    if (mode !== 'delete' && (a.content === undefined || a.content === null)) {
      throw new CommandExecutionError('Content can only be empty if mode is "delete"');
    }
    const before = readFileSync(p, 'utf8');
    const after = editLines(before, { ...a, mode });
    if (after === before) return false;
    if (a.backup) {
      const stamp = backupStamp(new Date());
      guard(() => copyFileSync(p, `${p}.${stamp}`, constants.COPYFILE_EXCL), `${p}.${stamp}`);
    }
    guard(() => atomicWrite(p, after, statSync(p).mode & 0o7777, ownerOf(p)), p);
    return a.show_changes ? unifiedDiff(before, after) : true;
  }

  @Fn({
    summary: "Run sed -i on a file ('s/before/after/flags', limited to lines matching limit); returns cmd.run_all's dict",
    examples: ["salt '*' file.sed /etc/httpd/httpd.conf 'LogLevel warn' 'LogLevel info'"],
    args: {
      path: arg.string({ nonEmpty: true }),
      before: arg.any(),
      after: arg.any(),
      limit: arg.string({ default: '' }),
      backup: arg.any({ default: '.bak' }),
      options: arg.string({ default: '-r -e' }),
      flags: arg.string({ default: 'g' }),
      escape_all: arg.boolean({ default: false }),
      negate_match: arg.boolean({ default: false }),
    },
  })
  async sed(a: {
    path: string;
    before: unknown;
    after: unknown;
    limit: string;
    backup: unknown;
    options: string;
    flags: string;
    escape_all: boolean;
    negate_match: boolean;
  }): Promise<unknown> {
    const p = expandUser(a.path);
    if (!existsSync(p)) return false;
    const esc = (s: string): string => (a.escape_all ? s.replace(/[/\\'`"^$.*[\]]/g, '\\$&') : s.replace(/\//g, '\\/'));
    const backup = backupOf(a.backup);
    const expr = `${a.limit ? `/${esc(a.limit)}/ ` : ''}${a.negate_match ? '!' : ''}s/${esc(text(a.before))}/${esc(text(a.after))}/${a.flags}`;
    const cmd = ['sed', backup ? `-i${backup}` : '-i', ...a.options.split(/\s+/).filter(Boolean), expr, p];
    const res = await this.shell.run(cmd, { pythonShell: false });
    return { pid: res.pid, retcode: res.retcode, stdout: res.stdout.replace(/\n$/, ''), stderr: res.stderr.replace(/\n$/, '') };
  }
}
