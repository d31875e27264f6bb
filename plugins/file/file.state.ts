import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { arg, CommandExecutionError, State, StateModule, type StateContext, type StateReturn } from 'brine/plugin';
import { appendDiff, unifiedDiff } from './unified-diff';

const NAME = { name: arg.string() };
const MAKEDIRS = { makedirs: arg.boolean({ default: false }) };
/** A file mode as Salt takes it: `'0644'`, `644` or (YAML 1.1's octal) 420 read as its digits. */
const MODE = arg.any({ optional: true });

const MANAGED = {
  ...NAME,
  source: arg.any({ optional: true }),
  template: arg.string({ optional: true }),
  contents: arg.any({ optional: true }),
  mode: MODE,
  user: arg.string({ optional: true }),
  group: arg.string({ optional: true }),
  defaults: arg.dict({ optional: true }),
  context: arg.dict({ optional: true }),
  ...MAKEDIRS,
};
interface ManagedArgs {
  name: string;
  source?: unknown;
  template?: string;
  contents?: unknown;
  mode?: unknown;
  user?: string;
  group?: string;
  defaults?: Record<string, unknown>;
  context?: Record<string, unknown>;
  makedirs: boolean;
}
const LINE = {
  ...NAME,
  content: arg.any({ optional: true }),
  match: arg.any({ optional: true }),
  mode: arg.string({ optional: true }),
  location: arg.string({ optional: true }),
  before: arg.any({ optional: true }),
  after: arg.any({ optional: true }),
};
interface LineArgs {
  name: string;
  content?: unknown;
  match?: unknown;
  mode?: string;
  location?: string;
  before?: unknown;
  after?: unknown;
}

/** A state-runner service of the context; outside a state run it is a clear error. */
function needed<F>(f: F | undefined, what: string): F {
  if (!f) throw new CommandExecutionError(`file states need the state runner's ${what}: run them through state.apply / state.sls`);
  return f;
}

/** The path inside the saltenv of a `salt://` URL (for relative template imports). */
export function saltPath(source: string): string {
  return source.startsWith('salt://') ? source.slice('salt://'.length).split('?')[0] : source;
}

/** A template's variables: the state's own arguments, `defaults`, then `context` over them. */
export function templateContext(args: ManagedArgs, source: string): Record<string, unknown> {
  return {
    name: args.name,
    source,
    user: args.user,
    group: args.group,
    mode: args.mode,
    ...(args.defaults ?? {}),
    ...(args.context ?? {}),
  };
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function modeOf(v: unknown): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return parseInt(String(v), 8);
}

function modeText(m: number): string {
  return `0${(m & 0o7777).toString(8).padStart(3, '0')}`;
}

/** Write through a temporary file in the same directory, then rename: never a half-written target. */
function atomicWrite(path: string, data: string, mode: number): void {
  const tmp = join(dirname(path), `.${basename(path)}.brine-${process.pid}-${Date.now()}`);
  try {
    writeFileSync(tmp, data, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Salt 3007's `file` state module (managed, directory, absent, symlink, exists, missing). */
@StateModule('file')
export class FileStates {
  @State({
    summary: 'Ensure that some text appears at the end of a file',
    examples: ['salt-call state.single file.append /etc/motd text=hello'],
    args: { ...NAME, text: arg.any({ optional: true }), ...MAKEDIRS },
    kwargs: true,
  })
  async append(args: { name: string; text?: unknown; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const text =
      args.text === undefined || args.text === null ? [] : Array.isArray(args.text) ? args.text.map(String) : [String(args.text)];
    if (!existsSync(name)) {
      if (!args.makedirs && !existsSync(dirname(name))) {
        ret.result = false;
        ret.comment = `Directory ${dirname(name)} for file ${name} is not present`;
        return ret;
      }
    }
    const before = existsSync(name) ? readFileSync(name, 'utf8') : '';
    const present = (chunk: string): boolean => new RegExp(chunk.trim().split(/\s+/).map(escapeRegex).join('\\s+'), 'm').test(before);
    const add = text.flatMap((t) => t.split('\n')).filter((l) => !present(l));
    if (add.length === 0) {
      ret.comment = `File ${name} is in correct state`;
      return ret;
    }
    const after = (before === '' || before.endsWith('\n') ? before : `${before}\n`) + add.map((l) => `${l}\n`).join('');
    ret.changes = { diff: appendDiff(before, after) };
    if (ctx.test) {
      ret.result = null;
      ret.comment = `File ${name} is set to be updated`;
      return ret;
    }
    mkdirSync(dirname(name), { recursive: true });
    atomicWrite(name, after, existsSync(name) ? statSync(name).mode & 0o7777 : 0o644);
    ret.comment = `Appended ${add.length} lines`;
    return ret;
  }

  @State({
    summary: 'Maintain an edit in a file by regular expression',
    args: {
      ...NAME,
      pattern: arg.string(),
      repl: arg.string(),
      count: arg.integer({ default: 0, min: 0 }),
      backup: arg.any({ default: '.bak' }),
    },
    kwargs: true,
  })
  async replace(
    args: { name: string; pattern: string; repl: string; count: number; backup: unknown },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (!existsSync(name)) {
      ret.result = false;
      ret.comment = `${name}: file not found`;
      return ret;
    }
    const before = readFileSync(name, 'utf8');
    const count = args.count;
    let n = 0;
    const re = new RegExp(args.pattern, 'gm');
    const after = before.replace(re, (m) => (count && n >= count ? m : (n++, args.repl.replace(/\\(\d)/g, '$$$1'))));
    if (after === before) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    ret.changes = { diff: unifiedDiff(before, after) };
    if (ctx.test) {
      ret.result = null;
      ret.comment = 'Changes would have been made';
      return ret;
    }
    const mode = statSync(name).mode & 0o7777;
    const backup = args.backup;
    if (backup !== false && backup !== null && backup !== '') writeFileSync(`${name}${String(backup)}`, before, { mode });
    atomicWrite(name, after, mode);
    ret.comment = 'Changes were made';
    return ret;
  }

  @State({ summary: 'Line-focused editing of a file', description: 'mode is insert, ensure, replace or delete.', args: LINE, kwargs: true })
  async line(args: LineArgs, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const mode = String(args.mode ?? '').toLowerCase();
    if (!['insert', 'ensure', 'replace', 'delete'].includes(mode)) {
      ret.result = false;
      ret.comment = mode ? `Unknown mode: ${mode}` : 'Mode was not defined. How to process the file?';
      return ret;
    }
    if (!existsSync(name)) {
      ret.result = false;
      ret.comment = `File "${name}" doesn't exist`;
      return ret;
    }
    const before = readFileSync(name, 'utf8');
    const lines = before.split('\n');
    const trailing = lines[lines.length - 1] === '';
    if (trailing) lines.pop();
    const content = args.content === undefined || args.content === null ? '' : String(args.content);
    const matches = (l: string, p: unknown): boolean => p !== undefined && p !== null && new RegExp(String(p)).test(l);
    const out = [...lines];
    if (mode === 'insert') {
      if (!out.includes(content)) {
        if (args.after !== undefined) {
          const i = out.findIndex((l) => matches(l, args.after));
          if (i !== -1) out.splice(i + 1, 0, content);
        } else if (args.before !== undefined) {
          const i = out.findIndex((l) => matches(l, args.before));
          if (i !== -1) out.splice(i, 0, content);
        } else if (args.location === 'start') out.unshift(content);
        else out.push(content);
      }
    } else if (mode === 'replace') {
      for (let i = 0; i < out.length; i++) if (matches(out[i], args.match ?? content)) out[i] = content;
    } else if (mode === 'delete') {
      for (let i = out.length - 1; i >= 0; i--) if (matches(out[i], args.match ?? content)) out.splice(i, 1);
    } else if (!out.includes(content)) {
      out.push(content);
    }
    const after = out.join('\n') + (trailing || out.length > lines.length ? '\n' : '');
    if (after === before) {
      ret.comment = 'No changes needed to be made';
      return ret;
    }
    ret.changes = { diff: unifiedDiff(before, after) };
    if (ctx.test) {
      ret.result = null;
      ret.comment = 'Changes would be made';
      return ret;
    }
    atomicWrite(name, after, statSync(name).mode & 0o7777);
    ret.comment = 'Changes were made';
    return ret;
  }

  @State({
    summary: 'Manage a given file, from a source or from contents',
    examples: ['salt-call state.single file.managed /etc/motd contents=hi'],
    args: MANAGED,
    kwargs: true,
  })
  async managed(args: ManagedArgs, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { changes: {}, comment: '', name, result: true };
    let contents: string | undefined;
    let fromSource = false;
    if (args.source !== undefined && args.source !== null) {
      const sources = Array.isArray(args.source) ? args.source.map(String) : [String(args.source)];
      let found: string | null = null;
      let used = sources[0];
      for (const s of sources) {
        found = await needed(ctx.cacheFile, 'cacheFile')(s);
        used = s;
        if (found) break;
      }
      if (!found) {
        ret.result = false;
        ret.comment = `Source file ${sources[0]} not found in saltenv '${ctx.saltenv}'`;
        return ret;
      }
      if (args.template && args.template !== 'jinja') {
        ret.result = false;
        ret.comment = `The template renderer '${args.template}' is not available (brine renders jinja)`;
        return ret;
      }
      contents = args.template
        ? await needed(ctx.renderTemplate, 'renderTemplate')(found, saltPath(used), templateContext(args, used))
        : readFileSync(found, 'utf8');
      fromSource = true;
    } else if (args.contents !== undefined && args.contents !== null) {
      const c = args.contents;
      contents = Array.isArray(c) ? c.map(String).join('\n') + '\n' : String(c);
      if (!Array.isArray(c) && !contents.endsWith('\n')) contents += '\n';
    }
    const exists = existsSync(name);
    const wantMode = modeOf(args.mode) ?? (fromSource && !exists ? 0o644 : undefined);
    if (exists && !statSync(name).isFile()) {
      ret.result = false;
      ret.comment = `Specified target ${name} is a directory`;
      return ret;
    }
    if (!exists) {
      // Salt's test mode answers before manage_file checks the parent directory (an earlier
      // state of the run, e.g. file.directory, may create it).
      if (ctx.test) {
        ret.result = null;
        ret.comment = `The file ${name} is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.`;
        ret.changes = { newfile: name };
        return ret;
      }
      if (!existsSync(dirname(name)) && !args.makedirs) {
        ret.result = false;
        ret.comment = `Parent directory not present`;
        return ret;
      }
      mkdirSync(dirname(name), { recursive: true });
      atomicWrite(name, contents ?? '', wantMode ?? 0o644);
      ret.changes = { diff: 'New file' };
      if (wantMode !== undefined && (args.mode !== undefined || fromSource)) ret.changes.mode = modeText(wantMode);
      ret.comment = `File ${name} updated`;
      return ret;
    }
    const current = readFileSync(name, 'utf8');
    const curMode = statSync(name).mode & 0o7777;
    const changes: Record<string, unknown> = {};
    if (contents !== undefined && contents !== current) changes.diff = unifiedDiff(current, contents);
    if (wantMode !== undefined && wantMode !== curMode) changes.mode = modeText(wantMode);
    if (Object.keys(changes).length === 0) {
      // Salt's test-mode check words it differently from the real run.
      ret.comment = ctx.test ? `The file ${name} is in the correct state` : `File ${name} is in the correct state`;
      return ret;
    }
    if (ctx.test) {
      ret.result = null;
      ret.changes = changes;
      ret.comment = `The file ${name} is set to be changed\nNote: No changes made, actual changes may\nbe different due to other states.`;
      return ret;
    }
    if (contents !== undefined && contents !== current) atomicWrite(name, contents, wantMode ?? curMode);
    else if (wantMode !== undefined) chmodSync(name, wantMode);
    ret.changes = changes;
    ret.comment = `File ${name} updated`;
    return ret;
  }

  @State({
    summary: 'Ensure that a named directory is present and has the right mode',
    args: { ...NAME, mode: MODE, dir_mode: MODE, ...MAKEDIRS },
    kwargs: true,
  })
  async directory(args: { name: string; mode?: unknown; dir_mode?: unknown; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    const mode = modeOf(args.dir_mode ?? args.mode);
    if (existsSync(name) && !statSync(name).isDirectory()) {
      ret.result = false;
      ret.comment = `Specified location ${name} exists and is a file`;
      return ret;
    }
    if (!existsSync(name)) {
      if (ctx.test) {
        ret.result = null;
        ret.comment = `The following files will be changed:\n${name}: directory - new\n`;
        ret.changes = { [name]: { directory: 'new' } };
        return ret;
      }
      if (!existsSync(dirname(name)) && !args.makedirs) {
        ret.result = false;
        ret.comment = `No directory to create ${name} in`;
        return ret;
      }
      const missing: string[] = [];
      for (let d = dirname(name); !existsSync(d); d = dirname(d)) missing.unshift(d);
      for (const d of missing) {
        mkdirSync(d);
        if (mode !== undefined) chmodSync(d, mode);
      }
      mkdirSync(name);
      if (mode !== undefined) chmodSync(name, mode);
      ret.changes = { [name]: { directory: 'new' } };
      return ret;
    }
    const cur = statSync(name).mode & 0o7777;
    if (mode !== undefined && cur !== mode) {
      if (ctx.test) {
        ret.result = null;
        ret.comment = `The following files will be changed:\n${name}: mode - ${modeText(mode)}\n`;
        ret.changes = { [name]: { mode: modeText(mode) } };
        return ret;
      }
      chmodSync(name, mode);
      ret.changes = { [name]: { mode: modeText(mode) } };
      return ret;
    }
    ret.comment = `The directory ${name} is in the correct state`;
    return ret;
  }

  @State({ summary: 'Make sure that the named file or directory is absent', args: NAME, kwargs: true })
  async absent(args: { name: string }, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    let present = false;
    try {
      lstatSync(name);
      present = true;
    } catch {
      present = false;
    }
    if (!present) {
      ret.comment = `File ${name} is not present`;
      return ret;
    }
    const isDir = lstatSync(name).isDirectory();
    if (ctx.test) {
      ret.result = null;
      ret.comment = `${isDir ? 'Directory' : 'File'} ${name} is set for removal`;
      ret.changes = { removed: name };
      return ret;
    }
    rmSync(name, { recursive: true, force: true });
    ret.comment = `Removed ${isDir ? 'directory' : 'file'} ${name}`;
    ret.changes = { removed: name };
    return ret;
  }

  @State({ summary: 'Create a symbolic link', args: { ...NAME, target: arg.string(), ...MAKEDIRS }, kwargs: true })
  async symlink(args: { name: string; target: string; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    const name = args.name;
    const target = args.target;
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    let current: string | null = null;
    try {
      current = readlinkSync(name);
    } catch {
      current = null;
    }
    if (current === target) {
      ret.comment = `Symlink ${name} is present and owned by root:root`;
      return ret;
    }
    if (ctx.test) {
      ret.result = null;
      ret.comment =
        current === null ? `Symlink ${name} to ${target} is set for creation` : `Symlink ${name} will be updated to point to ${target}`;
      ret.changes = current === null ? { new: name } : { change: name };
      return ret;
    }
    if (!existsSync(dirname(name))) {
      if (!args.makedirs) {
        ret.result = false;
        ret.comment = `Directory ${dirname(name)} for symlink is not present`;
        return ret;
      }
      mkdirSync(dirname(name), { recursive: true });
    }
    const tmp = join(dirname(name), `.${basename(name)}.brine-${process.pid}`);
    symlinkSync(target, tmp);
    renameSync(tmp, name);
    ret.comment = current === null ? `Created new symlink ${name} -> ${target}` : `Set target of symlink ${name} -> ${target}`;
    ret.changes = current === null ? { new: name } : { change: name };
    return ret;
  }

  @State({ summary: 'Verify that the named file or directory is present or exists', args: NAME, kwargs: true })
  async exists(args: { name: string }): Promise<StateReturn> {
    const ok = existsSync(args.name);
    return {
      name: args.name,
      changes: {},
      result: ok,
      comment: ok ? `Path ${args.name} exists` : `Specified path ${args.name} does not exist`,
    };
  }

  @State({ summary: 'Verify that the named file or directory is missing', args: NAME, kwargs: true })
  async missing(args: { name: string }): Promise<StateReturn> {
    const ok = !existsSync(args.name);
    return {
      name: args.name,
      changes: {},
      result: ok,
      comment: ok ? `Path ${args.name} is missing` : `Specified path ${args.name} exists`,
    };
  }
}
