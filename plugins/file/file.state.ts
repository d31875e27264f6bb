import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, posix, relative } from 'node:path';
import {
  arg,
  CommandExecutionError,
  IConfig,
  httpExists,
  IGrains,
  inject,
  pyStr,
  State,
  StateModule,
  traverse,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';
import { FileEditStates, splitLines, strList, touchState } from './file-edit.state';
import { manageFile } from './file-manage';
import { expandUser, isDir, isLink } from './file-paths';
import { digest, download, isRemote, localPath, schemeOf, sourceSum, type SourceSum } from './file-source';
import { atomicCopy, checkPerms, checkUser, fail, isFile, lexists, modeArg, permsDiffer } from './file-state-kit';
import { checkIncludeExclude, cleanDir, walkTree } from './file-tree';
import { serializeData, deserializeData, mergeRecurse, recursiveDiff } from './file-serialize';

const NAME = { name: arg.string() };
const MAKEDIRS = { makedirs: arg.boolean({ default: false }) };
/** A file mode as Salt takes it: `'0644'`, `644` or (YAML 1.1's octal) 420 read as its digits. */
const MODE = arg.any({ optional: true });
const OWNER = { user: arg.any({ optional: true }), group: arg.any({ optional: true }) };
const NOT_FOUND = Symbol('not found');

const MANAGED = {
  ...NAME,
  source: arg.any({ optional: true }),
  source_hash: arg.any({ optional: true }),
  source_hash_name: arg.string({ optional: true }),
  ...OWNER,
  mode: MODE,
  template: arg.string({ optional: true }),
  ...MAKEDIRS,
  dir_mode: MODE,
  context: arg.dict({ optional: true }),
  replace: arg.boolean({ default: true }),
  defaults: arg.dict({ optional: true }),
  backup: arg.any({ default: '' }),
  show_changes: arg.boolean({ default: true }),
  create: arg.boolean({ default: true }),
  contents: arg.any({ optional: true }),
  contents_pillar: arg.any({ optional: true }),
  contents_grains: arg.any({ optional: true }),
  contents_newline: arg.boolean({ default: true }),
  contents_delimiter: arg.string({ default: ':' }),
  allow_empty: arg.boolean({ default: true }),
  follow_symlinks: arg.boolean({ default: true }),
  skip_verify: arg.boolean({ default: false }),
};
interface ManagedArgs {
  name: string;
  source?: unknown;
  source_hash?: unknown;
  source_hash_name?: string;
  user?: unknown;
  group?: unknown;
  mode?: unknown;
  template?: string;
  makedirs: boolean;
  dir_mode?: unknown;
  context?: Record<string, unknown>;
  replace: boolean;
  defaults?: Record<string, unknown>;
  backup: unknown;
  show_changes: boolean;
  create: boolean;
  contents?: unknown;
  contents_pillar?: unknown;
  contents_grains?: unknown;
  contents_newline: boolean;
  contents_delimiter: string;
  allow_empty: boolean;
  follow_symlinks: boolean;
  skip_verify: boolean;
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
export function templateContext(args: Partial<ManagedArgs> & { name: string }, source: string): Record<string, unknown> {
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

const given = (v: unknown): boolean => v !== undefined && v !== null;

/** Salt 3007's `file` state module. The text-editing states come from {@link FileEditStates}. */
@StateModule('file', { doc: 'Operations on regular files, special files, directories, and symlinks' })
export class FileStates extends FileEditStates {
  constructor(
    @inject(IGrains) private readonly grains: IGrains,
    @inject(IConfig) private readonly config: IConfig,
  ) {
    super();
  }

  private cachedir(): string {
    return String(this.config.get('cachedir', join(String(this.config.get('root_dir', '/')), 'var/cache/salt/minion')));
  }

  /** Salt's `file.source_list`: the first source of a list that exists (a string source is taken as it is). */
  private async pickSource(source: unknown, sourceHash: unknown, ctx: StateContext): Promise<[string, unknown] | null> {
    if (!Array.isArray(source)) return [String(source), sourceHash];
    for (const item of source) {
      const [src, hash] =
        item !== null && typeof item === 'object'
          ? (Object.entries(item as Record<string, unknown>)[0] ?? ['', null])
          : [String(item), null];
      if (!src) continue;
      const scheme = schemeOf(src);
      let exists = false;
      if (scheme === 'salt') exists = (await needed(ctx.cacheFile, 'cacheFile')(src)) !== null;
      // Salt's source_list asks an http(s) source with HEAD (its user:password@ included).
      else if (isRemote(src)) exists = scheme !== 'ftp' && (await httpExists(src));
      else exists = existsSync(localPath(src));
      if (exists) return [src, hash || sourceHash];
    }
    return null;
  }

  /** The text of a hash file named by source_hash (salt://, local or http(s)). */
  private async readHashFile(url: string, ctx: StateContext): Promise<string | null> {
    if (isRemote(url)) return readFileSync(await download(url, this.cachedir(), ctx.saltenv ?? 'base'), 'utf8');
    const local = schemeOf(url) === 'salt' ? await needed(ctx.cacheFile, 'cacheFile')(url) : localPath(url);
    return local && existsSync(local) ? readFileSync(local, 'utf8') : null;
  }

  /** The run's pillar value at `key` (Salt's `pillar.get`). */
  private pillarGet(ctx: StateContext, key: string, delimiter = ':', dflt: unknown = NOT_FOUND): unknown {
    return traverse(ctx.pillar ?? {}, key, dflt, delimiter);
  }

  @State({
    summary: 'Manage a given file, from a source or from contents',
    description:
      'source: a salt:// URL, a local path, an http(s) URL (needs source_hash unless skip_verify) or a list (the first that exists). ' +
      'contents, contents_pillar or contents_grains give the text instead. backup: minion keeps the old file under the cachedir file_backup/.',
    examples: [
      'salt-call state.single file.managed /etc/motd contents=hi',
      'salt-call state.single file.managed /etc/app.conf source=salt://app/app.conf',
    ],
    args: MANAGED,
    kwargs: true,
  })
  async managed(args: ManagedArgs, ctx: StateContext): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { changes: {}, comment: '', name, result: true };
    if (!args.name) return fail(ret, 'Must provide name to file.managed');
    const keepMode = typeof args.mode === 'string' && args.mode.toLowerCase() === 'keep';
    let mode = keepMode ? undefined : modeArg(args.mode);
    const hasSource = given(args.source) && args.source !== '' && !(Array.isArray(args.source) && args.source.length === 0);
    const contentsCount = [args.contents, args.contents_pillar, args.contents_grains].filter(given).length;
    if (hasSource && contentsCount > 0) {
      return fail(ret, "'source' cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'");
    }
    if (keepMode && contentsCount > 0) {
      return fail(ret, "Mode preservation cannot be used in combination with 'contents', 'contents_pillar', or 'contents_grains'");
    }
    if (contentsCount > 1) return fail(ret, "Only one of 'contents', 'contents_pillar', and 'contents_grains' is permitted");
    // Nothing to replace the file with: only its owner and mode are managed.
    const replace = args.replace && (hasSource || contentsCount > 0);
    let data: Buffer | undefined;
    if (contentsCount > 0) {
      let use: unknown;
      const delim = args.contents_delimiter;
      if (given(args.contents_pillar) || given(args.contents_grains)) {
        const fromPillar = given(args.contents_pillar);
        const keys = strList(fromPillar ? args.contents_pillar : args.contents_grains);
        const values: unknown[] = [];
        for (const key of keys) {
          const v = fromPillar ? this.pillarGet(ctx, key, delim) : this.grains.get(key, NOT_FOUND, delim);
          if (v === NOT_FOUND) return fail(ret, `${fromPillar ? 'Pillar' : 'Grain'} ${key} does not exist`);
          values.push(v);
        }
        use = Array.isArray(fromPillar ? args.contents_pillar : args.contents_grains) ? values.map((v) => pyStr(v)).join('\n') : values[0];
      } else use = args.contents;
      if (!args.allow_empty && (use === '' || use === false || (Array.isArray(use) && use.length === 0))) {
        const id = given(args.contents_pillar)
          ? `contents_pillar ${String(args.contents_pillar)}`
          : given(args.contents_grains)
            ? `contents_grains ${String(args.contents_grains)}`
            : "'contents'";
        return fail(ret, `${id} value would result in empty contents. Set allow_empty to True to allow the managed file to be empty.`);
      }
      const parts = Array.isArray(use) ? use.map((x) => pyStr(x)) : [typeof use === 'string' ? use : pyStr(use)];
      let text = parts.flatMap((p) => splitLines(p).map((l) => `${l}\n`)).join('');
      if (!args.contents_newline) text = text.replace(/\n$/, '').replace(/\r$/, '');
      if (args.template) text = await this.renderText(text, args, ctx);
      data = Buffer.from(text, 'utf8');
    }
    if (!args.create && !isFile(name)) {
      ret.comment = `File ${name} is not present and is not set for creation`;
      return ret;
    }
    const uerr = checkUser(args.user, args.group, ctx.test);
    if (uerr) return fail(ret, uerr);
    if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
    if (isDir(name) && !(isLink(name) && !args.follow_symlinks)) return fail(ret, `Specified target ${name} is a directory`);
    const perms = { user: args.user, group: args.group, mode, followSymlinks: args.follow_symlinks };
    if (!replace && lexists(name)) {
      if (ctx.test) {
        const lmode = `0${(statSync(name).mode & 0o7777).toString(8).padStart(3, '0')}`;
        Object.assign(ret.changes as object, permsDiffer(name, perms));
        if (Object.keys(ret.changes).length > 0) ret.result = null;
        ret.comment =
          mode && mode !== lmode
            ? `File ${name} will be updated with permissions ${mode} from its current state of ${lmode}`
            : `File ${name} not updated`;
      } else {
        checkPerms(name, ret, perms, false);
        if (Object.keys(ret.changes).length === 0 && ret.result)
          ret.comment = `File ${name} exists with proper permissions. No changes made.`;
      }
      return ret;
    }
    let fromSource = false;
    if (hasSource && data === undefined) {
      const picked = await this.pickSource(args.source, args.source_hash, ctx);
      if (!picked) return fail(ret, 'Unable to manage file: none of the specified sources were found');
      const [source, sourceHash] = picked;
      let fetched: { data?: Buffer; comment?: string };
      try {
        fetched = await this.getManaged(name, source, sourceHash, args, ctx);
      } catch (err) {
        return fail(ret, `Unable to manage file: ${(err as Error).message}`);
      }
      if (fetched.comment !== undefined) return fail(ret, fetched.comment);
      data = fetched.data;
      fromSource = true;
      if (keepMode) {
        const local = schemeOf(source) === 'salt' ? await needed(ctx.cacheFile, 'cacheFile')(source) : localPath(source);
        if (local) mode = `0${(statSync(local).mode & 0o777).toString(8).padStart(3, '0')}`;
      }
    }
    return manageFile(ret, name, replace ? data : undefined, {
      user: args.user,
      group: args.group,
      mode,
      reportNewMode: fromSource,
      makedirs: args.makedirs,
      dirMode: modeArg(args.dir_mode),
      backup: args.backup,
      showChanges: args.show_changes,
      followSymlinks: args.follow_symlinks,
      cachedir: this.cachedir(),
      test: ctx.test,
    });
  }

  /** Render text (file.managed's `contents` with `template`) as a template file would be. */
  private async renderText(text: string, args: ManagedArgs, ctx: StateContext): Promise<string> {
    if (args.template !== 'jinja')
      throw new CommandExecutionError(`The template renderer '${args.template}' is not available (brine renders jinja)`);
    const dir = mkdtempSync(join(tmpdir(), 'brine-tpl-'));
    try {
      const path = join(dir, 'contents');
      writeFileSync(path, text);
      return await needed(ctx.renderTemplate, 'renderTemplate')(path, 'contents', templateContext(args, ''));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /**
   * Salt's `file.get_managed` plus manage_file's hash check: the new bytes of a source, or the
   * comment of why there are none (missing source, hash needed, hash mismatch).
   */
  private async getManaged(
    name: string,
    source: string,
    sourceHash: unknown,
    args: ManagedArgs,
    ctx: StateContext,
  ): Promise<{ data?: Buffer; comment?: string }> {
    const scheme = schemeOf(source);
    let sum: SourceSum | undefined;
    const hashWanted = given(sourceHash) && sourceHash !== '' && !args.skip_verify && scheme !== 'salt';
    let sfn: string | null = null;
    if (scheme === '' || scheme === 'file') {
      sfn = localPath(source);
      if (!existsSync(sfn)) return { comment: `Local file source ${sfn} does not exist` };
    } else if (scheme === 'salt') {
      sfn = await needed(ctx.cacheFile, 'cacheFile')(source);
      if (!sfn) return { comment: `Source file ${source} not found in saltenv '${ctx.saltenv ?? 'base'}'` };
    } else if (!isRemote(source)) {
      return { comment: `Unable to manage file: unsupported source ${source} (salt://, file://, a local path, http(s) or ftp)` };
    } else if (!args.skip_verify && !hashWanted) {
      return { comment: `Unable to verify upstream hash of source file ${source}, please set source_hash or set skip_verify to True` };
    }
    if (hashWanted) {
      try {
        sum = await sourceSum(String(sourceHash), {
          fileName: name,
          source,
          sourceHashName: args.source_hash_name,
          readHashFile: (u) => this.readHashFile(u, ctx),
        });
      } catch (err) {
        return { comment: (err as Error).message };
      }
      // The target already has the declared hash: nothing to fetch.
      if (!args.template && isFile(name) && digest(readFileSync(name), sum.hash_type) === sum.hsum) return { data: readFileSync(name) };
    }
    if (sfn === null) {
      try {
        sfn = await download(source, this.cachedir(), ctx.saltenv ?? 'base');
      } catch (err) {
        // Salt's get_managed returns the failed download as the state's comment, as it is.
        if (err instanceof CommandExecutionError) return { comment: err.message };
        throw err;
      }
    }
    const raw = readFileSync(sfn);
    if (sum) {
      const actual = digest(raw, sum.hash_type);
      if (actual !== sum.hsum) {
        return {
          comment: isFile(name)
            ? `Specified ${sum.hash_type} checksum for ${source} (${sum.hsum}) does not match actual checksum (${actual}). If the 'source_hash' value refers to a remote file with multiple possible matches, then it may be necessary to set 'source_hash_name'.`
            : `Specified ${sum.hash_type} checksum for ${name} (${sum.hsum}) does not match actual checksum (${actual})`,
        };
      }
    }
    if (!args.template) return { data: raw };
    if (args.template !== 'jinja') return { comment: `The template renderer '${args.template}' is not available (brine renders jinja)` };
    const text = await needed(ctx.renderTemplate, 'renderTemplate')(sfn, saltPath(source), templateContext(args, source));
    return { data: Buffer.from(text, 'utf8') };
  }

  @State({
    summary: 'Serialize a data structure (dataset or dataset_pillar) to a file as yaml or json',
    description: "json is written with indent 2 and sorted keys, yaml in block style, as Salt's serializers write them.",
    examples: ['salt-call state.single file.serialize /etc/app.json dataset=\'{"a": 1}\' serializer=json'],
    args: {
      ...NAME,
      dataset: arg.any({ optional: true }),
      dataset_pillar: arg.string({ optional: true }),
      ...OWNER,
      mode: MODE,
      backup: arg.any({ default: '' }),
      ...MAKEDIRS,
      show_changes: arg.boolean({ default: true }),
      create: arg.boolean({ default: true }),
      merge_if_exists: arg.boolean({ default: false }),
      serializer: arg.string({ optional: true }),
      formatter: arg.string({ optional: true }),
    },
    kwargs: true,
  })
  async serialize(
    args: {
      name: string;
      dataset?: unknown;
      dataset_pillar?: string;
      user?: unknown;
      group?: unknown;
      mode?: unknown;
      backup: unknown;
      makedirs: boolean;
      show_changes: boolean;
      create: boolean;
      merge_if_exists: boolean;
      serializer?: string;
      formatter?: string;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { changes: {}, comment: '', name, result: true };
    if (!args.name) return fail(ret, 'Must provide name to file.serialize');
    if (!args.create && !isFile(name)) {
      ret.comment = `File ${name} is not present and is not set for creation`;
      return ret;
    }
    if (args.serializer && args.formatter) return fail(ret, 'Only one of serializer and formatter are allowed');
    const serializer = String(args.serializer || args.formatter || 'yaml').toLowerCase();
    if (args.dataset && args.dataset_pillar) return fail(ret, "Only one of 'dataset' and 'dataset_pillar' is permitted");
    let dataset = args.dataset_pillar ? this.pillarGet(ctx, args.dataset_pillar, ':', '') : args.dataset;
    if (dataset === undefined || dataset === null) return fail(ret, "Neither 'dataset' nor 'dataset_pillar' was defined");
    if (serializer !== 'yaml' && serializer !== 'json') {
      return {
        changes: {},
        comment: `The ${serializer} serializer could not be found. It either does not exist or its prerequisites are not installed.`,
        name,
        result: false,
      };
    }
    let existing: unknown = null;
    let merged: unknown = null;
    if (args.merge_if_exists && isFile(name)) {
      try {
        existing = deserializeData(serializer, readFileSync(name, 'utf8'));
      } catch (err) {
        return fail(ret, `Failed to deserialize existing data: ${(err as Error).message}`);
      }
      if (existing !== null && existing !== undefined) {
        merged = mergeRecurse(existing, dataset);
        if (serializeData(serializer, existing) === serializeData(serializer, merged)) {
          ret.comment = `The file ${name} is in the correct state`;
          return ret;
        }
        dataset = merged;
      }
    }
    const contents = `${serializeData(serializer, dataset)}\n`;
    const mode = modeArg(args.mode);
    const out = manageFile(ret, name, Buffer.from(contents, 'utf8'), {
      user: args.user,
      group: args.group,
      mode,
      reportNewMode: false,
      makedirs: args.makedirs,
      backup: args.backup,
      showChanges: args.show_changes,
      followSymlinks: true,
      cachedir: this.cachedir(),
      test: ctx.test,
    });
    if (ctx.test) {
      if (Object.keys(out.changes).length > 0) {
        out.result = null;
        out.comment = `Dataset will be serialized and stored into ${name}`;
        if (!args.show_changes) (out.changes as Record<string, unknown>).diff = '<show_changes=False>';
      } else {
        out.result = true;
        out.comment = `The file ${name} is in the correct state`;
      }
    }
    if (merged !== null && typeof existing === 'object' && typeof merged === 'object') {
      (out.changes as Record<string, unknown>).diff = recursiveDiff(existing, merged);
    }
    return out;
  }

  @State({
    summary: 'Ensure that a named directory is present, with its owner and mode (recurse: over its contents too)',
    description:
      'recurse is a list of user, group, mode, ignore_files, ignore_dirs, silent. clean removes what no state requires (exclude_pat keeps matches).',
    examples: ['salt-call state.single file.directory /srv/app user=www-data dir_mode=755 recurse=[user,mode]'],
    args: {
      ...NAME,
      ...OWNER,
      recurse: arg.any({ optional: true }),
      max_depth: arg.integer({ optional: true }),
      dir_mode: MODE,
      file_mode: MODE,
      mode: MODE,
      ...MAKEDIRS,
      clean: arg.boolean({ default: false }),
      require: arg.any({ optional: true }),
      exclude_pat: arg.any({ optional: true }),
      follow_symlinks: arg.boolean({ default: false }),
      force: arg.boolean({ default: false }),
      allow_symlink: arg.boolean({ default: true }),
      children_only: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async directory(
    args: {
      name: string;
      user?: unknown;
      group?: unknown;
      recurse?: unknown;
      max_depth?: number;
      dir_mode?: unknown;
      file_mode?: unknown;
      mode?: unknown;
      makedirs: boolean;
      clean: boolean;
      require?: unknown;
      exclude_pat?: unknown;
      follow_symlinks: boolean;
      force: boolean;
      allow_symlink: boolean;
      children_only: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    let name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (!args.name) return fail(ret, 'Must provide name to file.directory');
    if (name.endsWith('/') && name !== '/') name = name.slice(0, -1);
    ret.name = name;
    if (args.max_depth !== undefined && args.clean) return fail(ret, 'Cannot specify both max_depth and clean');
    const dirMode = modeArg(args.dir_mode ?? args.mode);
    const fileMode = modeArg(args.file_mode) ?? dirMode;
    const uerr = checkUser(args.user, args.group, ctx.test);
    if (uerr) return fail(ret, uerr);
    if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
    const changes = ret.changes as Record<string, unknown>;
    if (isFile(name) || (!args.allow_symlink && isLink(name)) || (args.force && isLink(name))) {
      if (args.force) {
        if (ctx.test) changes.forced = `${isLink(name) ? 'Symlink' : 'File'} would be forcibly replaced`;
        else {
          changes.forced = `${isLink(name) ? 'Symlink' : 'File'} was forcibly replaced`;
          unlinkSync(name);
        }
      } else if (isFile(name)) return fail(ret, `Specified location ${name} exists and is a file`);
      else return fail(ret, `Specified location ${name} exists and is a symlink`);
    }
    let recurseSet: Set<string>;
    try {
      recurseSet = recurseTypes(args.recurse);
    } catch (err) {
      return fail(ret, (err as Error).message);
    }
    const keep = keepFromRequire(name, args.require);
    const planned = checkDirectory(name, {
      user: args.user,
      group: args.group,
      recurse: recurseSet,
      dirMode,
      fileMode,
      clean: args.clean,
      keep,
      excludePat: args.exclude_pat,
      maxDepth: args.max_depth ?? null,
      followSymlinks: args.follow_symlinks,
      childrenOnly: args.children_only,
    });
    Object.assign(changes, planned.changes);
    if (ctx.test || Object.keys(changes).length === 0) {
      ret.result = planned.result;
      ret.comment = planned.comment;
      return ret;
    }
    if (!isDir(name)) {
      if (!isDir(dirname(name))) {
        if (!args.makedirs) return fail(ret, `No directory to create ${name} in`);
        const missing: string[] = [];
        for (let d = dirname(name); !existsSync(d); d = dirname(d)) missing.unshift(d);
        for (const d of missing) this.makeDir(d, args.user, args.group, dirMode);
      }
      this.makeDir(name, args.user, args.group, dirMode);
      ret.changes = { [name]: { directory: 'new' } };
      return ret;
    }
    // The real run: perms of the directory, then of its contents, then the clean.
    const perms: StateReturn = { name, changes: {}, result: true, comment: '' };
    const own = { user: recurseSet.has('user') ? args.user : undefined, group: recurseSet.has('group') ? args.group : undefined };
    const inner = { fmode: recurseSet.has('mode') ? fileMode : undefined, dmode: recurseSet.has('mode') ? dirMode : undefined };
    if (!args.children_only)
      checkPerms(name, perms, { user: args.user, group: args.group, mode: dirMode, followSymlinks: args.follow_symlinks }, false);
    if (recurseSet.size > 0) {
      for (const step of walkTree(name, args.max_depth ?? null)) {
        if (!recurseSet.has('ignore_files')) {
          for (const f of step.files)
            checkPerms(join(step.root, f), perms, { ...own, mode: inner.fmode, followSymlinks: args.follow_symlinks }, false);
        }
        if (!recurseSet.has('ignore_dirs')) {
          for (const d of step.dirs)
            checkPerms(join(step.root, d), perms, { ...own, mode: inner.dmode, followSymlinks: args.follow_symlinks }, false);
        }
      }
    }
    Object.assign(changes, perms.changes);
    if (perms.result === false) {
      ret.result = false;
      ret.comment = String(perms.comment);
    }
    if (recurseSet.has('silent')) ret.changes = { recursion: 'Changes silenced' };
    if (args.clean) {
      const removed = cleanDir(name, keep, args.exclude_pat, false);
      if (removed.length > 0) {
        (ret.changes as Record<string, unknown>).removed = removed;
        ret.comment = `Files cleaned from directory ${name}`;
      }
    }
    if (!ret.comment) {
      if (args.children_only) ret.comment = `Directory ${name}/* updated`;
      else if (Object.keys(ret.changes).length > 0) ret.comment = `Directory ${name} updated`;
    }
    if (Object.keys(ret.changes).length === 0 && ret.result) {
      ret.comment = [`Directory ${name} is in the correct state`, ret.comment].filter(Boolean).join('\n');
    }
    return ret;
  }

  /** mkdir with Salt's mode and owner for one directory. */
  private makeDir(d: string, user: unknown, group: unknown, mode: string | undefined): void {
    mkdirSync(d);
    if (mode !== undefined) chmodSync(d, parseInt(mode, 8));
    if (given(user) || given(group)) checkPerms(d, { name: d, changes: {}, result: true, comment: '' }, { user, group }, false);
  }

  @State({
    summary: "Recurse through a salt:// directory on the master and copy it to the minion's path",
    description:
      'Each file goes through file.managed (template, file_mode, user, group); clean removes files the source does not have; include_pat/exclude_pat filter by path (glob, or E@regex).',
    examples: ['salt-call state.apply  # with: /srv/www: {file.recurse: [{source: salt://www}, {clean: True}]}'],
    args: {
      ...NAME,
      source: arg.any(),
      clean: arg.boolean({ default: false }),
      require: arg.any({ optional: true }),
      ...OWNER,
      dir_mode: MODE,
      file_mode: MODE,
      template: arg.string({ optional: true }),
      context: arg.dict({ optional: true }),
      replace: arg.boolean({ default: true }),
      defaults: arg.dict({ optional: true }),
      backup: arg.any({ default: '' }),
      include_pat: arg.any({ optional: true }),
      exclude_pat: arg.any({ optional: true }),
      maxdepth: arg.integer({ optional: true }),
      show_changes: arg.boolean({ default: true }),
    },
    kwargs: 'kwargs',
  })
  async recurse(
    args: {
      name: string;
      source: unknown;
      clean: boolean;
      require?: unknown;
      user?: unknown;
      group?: unknown;
      dir_mode?: unknown;
      file_mode?: unknown;
      template?: string;
      context?: Record<string, unknown>;
      replace: boolean;
      defaults?: Record<string, unknown>;
      backup: unknown;
      include_pat?: unknown;
      exclude_pat?: unknown;
      maxdepth?: number;
      show_changes: boolean;
      kwargs?: Record<string, unknown>;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (args.kwargs && 'mode' in args.kwargs) {
      return fail(ret, "'mode' is not allowed in 'file.recurse'. Please use 'file_mode' and 'dir_mode'.");
    }
    const dirMode = modeArg(args.dir_mode);
    const keepMode = typeof args.file_mode === 'string' && args.file_mode.toLowerCase() === 'keep';
    const fileMode = keepMode ? undefined : modeArg(args.file_mode);
    const uerr = checkUser(args.user, args.group, ctx.test);
    if (uerr) return fail(ret, uerr);
    if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
    const sources = strList(args.source).map((s) => s.replace(/\/+$/, ''));
    for (const s of sources) if (!s.startsWith('salt://')) return fail(ret, `Invalid source '${s}' (must be a salt:// URI)`);
    const list = needed(ctx.listFiles, 'listFiles');
    let source: string | undefined;
    let files: string[] = [];
    for (const s of sources) {
      files = await list(s);
      if (files.length > 0 || sources.length === 1) {
        source = s;
        break;
      }
    }
    if (source === undefined) return fail(ret, 'Recurse failed: none of the specified sources were found');
    const [srcpath, query] = source.slice('salt://'.length).split('?');
    const senv = new URLSearchParams(query ?? '').get('saltenv') ?? ctx.saltenv ?? 'base';
    if (files.length === 0) {
      return fail(ret, `The directory '${srcpath}' does not exist on the salt fileserver in saltenv '${senv}'`);
    }
    if (!isDir(name)) {
      if (lexists(name)) return fail(ret, `The path ${name} exists and is not a directory`);
      if (!ctx.test) {
        const missing: string[] = [];
        for (let d = name; !existsSync(d); d = dirname(d)) missing.unshift(d);
        for (const d of missing) this.makeDir(d, args.user, args.group, dirMode);
      }
    }
    const comments = new Map<string, string[]>();
    const merge = (path: string, r: StateReturn): void => {
      if (r.result === false || ret.result === true) ret.result = r.result;
      if (r.result !== true && r.comment) comments.set(path, [...(comments.get(path) ?? []), String(r.comment)]);
      if (Object.keys(r.changes).length > 0) (ret.changes as Record<string, unknown>)[path] = r.changes;
    };
    const managed: [string, string][] = [];
    const dirs = new Set<string>();
    const keep = new Set<string>();
    for (const fn of files) {
      const rel = posix.relative(srcpath, fn);
      if (rel.startsWith('..') || (args.maxdepth !== undefined && rel.split('/').length - 1 > args.maxdepth)) continue;
      if (!checkIncludeExclude(rel, args.include_pat, args.exclude_pat)) continue;
      const dest = join(name, rel);
      keep.add(dest);
      dirs.add(dirname(dest));
      managed.push([dest, `salt://${fn}${query ? `?${query}` : ''}`]);
    }
    for (const d of [...dirs].sort()) {
      if (args.clean && lexists(d) && !isDir(d)) {
        if (ctx.test) {
          merge(d, { name, changes: {}, result: null, comment: `Replacing ${d} with a directory` });
          continue;
        }
        rmSync(d, { force: true });
        merge(d, { name, changes: { diff: 'Replaced file with a directory' }, result: true, comment: '' });
      }
      merge(
        d,
        await this.directory(
          {
            name: d,
            user: args.user,
            group: args.group,
            recurse: [],
            dir_mode: dirMode,
            makedirs: true,
            clean: false,
            follow_symlinks: false,
            force: false,
            allow_symlink: true,
            children_only: false,
          },
          ctx,
        ),
      );
    }
    for (const [dest, src] of managed) {
      if (args.clean && isDir(dest) && !isLink(dest) && args.replace) {
        if (ctx.test) {
          merge(dest, { name, changes: {}, result: null, comment: `Replacing directory ${dest} with a file` });
          continue;
        }
        rmSync(dest, { recursive: true, force: true });
        merge(dest, { name, changes: { diff: 'Replaced directory with a new file' }, result: true, comment: '' });
      }
      const r = await this.managed(
        {
          ...MANAGED_DEFAULTS,
          name: dest,
          source: src,
          user: args.user,
          group: args.group,
          mode: keepMode ? 'keep' : fileMode,
          template: args.template,
          makedirs: true,
          replace: args.replace,
          context: args.context,
          defaults: args.defaults,
          backup: args.backup,
          show_changes: args.show_changes,
        },
        ctx,
      );
      merge(dest, r);
    }
    if (args.clean) {
      for (const k of keepFromRequire(name, args.require)) keep.add(k);
      const removed = cleanDir(name, keep, args.exclude_pat, ctx.test);
      if (removed.length > 0) {
        if (ctx.test) {
          if (ret.result) ret.result = null;
          comments.set('removed', removed);
        } else (ret.changes as Record<string, unknown>).removed = removed;
      }
    }
    ret.comment = [...comments.entries()]
      .map(([k, v]) => `\n#### ${k} ####\n${v.join('\n')}`)
      .join('\n')
      .trim();
    if (!ret.comment) ret.comment = `Recursively updated ${name}`;
    if (Object.keys(ret.changes).length === 0 && ret.result) ret.comment = `The directory ${name} is in the correct state`;
    return ret;
  }

  @State({
    summary: 'Make sure that the named file or directory is absent',
    args: NAME,
    kwargs: true,
  })
  async absent(args: { name: string }, ctx: StateContext): Promise<StateReturn> {
    const name = expandUser(args.name);
    const ret: StateReturn = { name, changes: {}, result: true, comment: '' };
    if (!lexists(name)) {
      ret.comment = `File ${name} is not present`;
      return ret;
    }
    const dir = lstatSync(name).isDirectory();
    if (ctx.test) {
      ret.result = null;
      ret.comment = `${dir ? 'Directory' : 'File'} ${name} is set for removal`;
      ret.changes = { removed: name };
      return ret;
    }
    rmSync(name, { recursive: true, force: true });
    ret.comment = `Removed ${dir ? 'directory' : 'file'} ${name}`;
    ret.changes = { removed: name };
    return ret;
  }

  @State({ summary: 'Create a symbolic link', args: { ...NAME, target: arg.string(), ...MAKEDIRS }, kwargs: true })
  async symlink(args: { name: string; target: string; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    const name = expandUser(args.name);
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
      if (!args.makedirs) return fail(ret, `Directory ${dirname(name)} for symlink is not present`);
      mkdirSync(dirname(name), { recursive: true });
    }
    const tmp = join(dirname(name), `.${basename(name)}.brine-${process.pid}`);
    symlinkSync(target, tmp);
    renameSync(tmp, name);
    ret.comment = current === null ? `Created new symlink ${name} -> ${target}` : `Set target of symlink ${name} -> ${target}`;
    ret.changes = current === null ? { new: name } : { change: name };
    return ret;
  }

  @State({
    summary: "Replicate the 'nix touch command: create a file or update its access and modification times",
    examples: ['salt-call state.single file.touch /var/log/httpd/logrotate.empty'],
    args: { ...NAME, atime: arg.any({ optional: true }), mtime: arg.any({ optional: true }), ...MAKEDIRS },
    kwargs: true,
  })
  async touch(args: { name: string; atime?: unknown; mtime?: unknown; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    return touchState(expandUser(args.name), args.atime, args.mtime, args.makedirs, ctx.test);
  }

  @State({
    summary: 'Copy a file or directory on the minion to name',
    description: 'force overwrites an existing target; preserve keeps the source owner and mode; makedirs makes the parent directories.',
    examples: ['salt-call state.single file.copy /etc/app.conf.bak source=/etc/app.conf'],
    args: {
      ...NAME,
      source: arg.string(),
      force: arg.boolean({ default: false }),
      ...MAKEDIRS,
      preserve: arg.boolean({ default: false }),
      ...OWNER,
      mode: MODE,
      subdir: arg.boolean({ default: false }),
    },
    kwargs: true,
  })
  async copy(
    args: {
      name: string;
      source: string;
      force: boolean;
      makedirs: boolean;
      preserve: boolean;
      user?: unknown;
      group?: unknown;
      mode?: unknown;
      subdir: boolean;
    },
    ctx: StateContext,
  ): Promise<StateReturn> {
    let name = expandUser(args.name);
    const source = expandUser(args.source);
    const ret: StateReturn = { name, changes: {}, comment: `Copied "${source}" to "${name}"`, result: true };
    if (!args.name) return fail(ret, 'Must provide name to file.copy');
    if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
    if (!existsSync(source)) return fail(ret, `Source file "${source}" is not present`);
    let user = args.user;
    let group = args.group;
    let mode = modeArg(args.mode);
    if (!args.preserve) {
      const uerr = checkUser(user, group, ctx.test);
      if (uerr) return fail(ret, uerr);
      mode ??= `0${(statSync(source).mode & 0o7777).toString(8).padStart(3, '0')}`;
    } else {
      user = undefined;
      group = undefined;
    }
    if (isDir(name) && args.subdir) name = join(name, basename(source));
    let changed = true;
    if (lexists(name)) {
      if (!args.force) changed = false;
      else if (isFile(name) && isFile(source) && readFileSync(name).equals(readFileSync(source))) {
        ret.comment = `${String(ret.comment)} - files are identical but force flag is set`;
      }
    }
    if (ctx.test) {
      if (changed) {
        ret.comment = `File "${source}" is set to be copied to "${name}"`;
        ret.result = null;
      } else {
        ret.comment = `The target file "${name}" exists and will not be overwritten`;
        ret.result = true;
      }
      return ret;
    }
    if (!changed) {
      ret.comment = `The target file "${name}" exists and will not be overwritten`;
      return ret;
    }
    const dname = dirname(name);
    if (!isDir(dname)) {
      if (!args.makedirs) return fail(ret, `The target directory ${dname} is not present`);
      mkdirSync(dname, { recursive: true });
    }
    try {
      if (isDir(source)) {
        // A directory is copied beside the target, then swapped in by rename.
        const tmp = join(dname, `.${basename(name)}.brine-${process.pid}-copy`);
        cpSync(source, tmp, { recursive: true, verbatimSymlinks: true, preserveTimestamps: args.preserve });
        if (lexists(name)) rmSync(name, { recursive: true, force: true });
        renameSync(tmp, name);
      } else {
        if (isDir(name)) rmSync(name, { recursive: true, force: true });
        atomicCopy(source, name, statSync(source).mode & 0o7777);
      }
    } catch {
      return fail(ret, `Failed to copy "${source}" to "${name}"`);
    }
    ret.changes = { [name]: source };
    if (args.preserve) {
      const st = statSync(source);
      checkPerms(name, ret, { user: st.uid, group: st.gid }, false);
      ret.changes = { [name]: source };
    } else checkPerms(name, ret, { user, group, mode }, false);
    return ret;
  }

  @State({
    summary: 'If the source file exists on the system, rename it to the named file',
    examples: ['salt-call state.single file.rename /etc/app.conf source=/etc/app.conf.old'],
    args: { ...NAME, source: arg.string(), force: arg.boolean({ default: false }), ...MAKEDIRS },
    kwargs: true,
  })
  async rename(args: { name: string; source: string; force: boolean; makedirs: boolean }, ctx: StateContext): Promise<StateReturn> {
    const expand = (p: string): string =>
      expandUser(p).replace(/\$(\w+)|\$\{(\w+)\}/g, (m, a: string, b: string) => process.env[a ?? b] ?? m);
    const name = expand(args.name);
    const source = expand(args.source);
    const ret: StateReturn = { name, changes: {}, comment: '', result: true };
    if (!args.name) return fail(ret, 'Must provide name to file.rename');
    if (!isAbsolute(name)) return fail(ret, `Specified file ${name} is not an absolute path`);
    if (!lexists(source)) {
      ret.comment = `Source file "${source}" has already been moved out of place`;
      return ret;
    }
    if (lexists(name) && !args.force) {
      ret.comment = `The target file "${name}" exists and will not be overwritten`;
      return ret;
    }
    if (ctx.test) {
      ret.comment = `File "${source}" is set to be moved to "${name}"`;
      ret.result = null;
      return ret;
    }
    const dname = dirname(name);
    if (!isDir(dname)) {
      if (!args.makedirs) return fail(ret, `The target directory ${dname} is not present`);
      mkdirSync(dname, { recursive: true });
    }
    try {
      // rename(2) replaces a file target in one step; only a directory in the way is removed first.
      if (lexists(name) && isDir(name) && !isLink(name)) rmSync(name, { recursive: true, force: true });
      renameSync(source, name);
    } catch {
      return fail(ret, `Failed to move "${source}" to "${name}"`);
    }
    ret.comment = `Moved "${source}" to "${name}"`;
    ret.changes = { [name]: source };
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

/** file.managed's defaults, for file.recurse calling it per file. */
const MANAGED_DEFAULTS: Omit<ManagedArgs, 'name'> = {
  makedirs: false,
  replace: true,
  backup: '',
  show_changes: true,
  create: true,
  contents_newline: true,
  contents_delimiter: ':',
  allow_empty: true,
  follow_symlinks: true,
  skip_verify: false,
};

const RECURSE_TYPES = ['user', 'group', 'mode', 'ignore_files', 'ignore_dirs', 'silent'];

/** Salt's `_get_recurse_set`, with its errors. */
export function recurseTypes(recurse: unknown): Set<string> {
  if (recurse === undefined || recurse === null || recurse === false || (Array.isArray(recurse) && recurse.length === 0)) return new Set();
  if (!Array.isArray(recurse)) throw new CommandExecutionError('"recurse" must be formed as a list of strings');
  const set = new Set(recurse.map(String));
  if (![...set].every((t) => RECURSE_TYPES.includes(t))) {
    throw new CommandExecutionError(`Types for "recurse" limited to ${RECURSE_TYPES.map((t) => `"${t}"`).join(', ')}.`);
  }
  if (set.has('ignore_files') && set.has('ignore_dirs')) {
    throw new CommandExecutionError('Must not specify "recurse" options "ignore_files" and "ignore_dirs" at the same time.');
  }
  return set;
}

/** The paths under `dir` that `require: [{file: path}]` names (Salt's `_gen_keep_files`, by path). */
function keepFromRequire(dir: string, require: unknown): string[] {
  const keep: string[] = [];
  if (!Array.isArray(require)) return keep;
  for (const comp of require) {
    if (comp === null || typeof comp !== 'object' || !('file' in comp)) continue;
    const p = String((comp as Record<string, unknown>).file);
    if (isAbsolute(p) && !relative(dir, p).startsWith('..')) {
      keep.push(p);
      if (isDir(p)) for (const step of walkTree(p)) for (const n of [...step.dirs, ...step.files]) keep.push(join(step.root, n));
    }
  }
  return keep;
}

interface DirectoryPlan {
  user?: unknown;
  group?: unknown;
  recurse: Set<string>;
  dirMode?: string;
  fileMode?: string;
  clean: boolean;
  keep: string[];
  excludePat?: unknown;
  maxDepth: number | null;
  followSymlinks: boolean;
  childrenOnly: boolean;
}

/** Salt's `_check_directory`: what file.directory would change, as result, comment and changes. */
function checkDirectory(
  name: string,
  o: DirectoryPlan,
): { result: boolean | null; comment: string; changes: Record<string, Record<string, unknown>> } {
  const changes: Record<string, Record<string, unknown>> = {};
  const walk = o.recurse.size > 0 || o.clean ? walkTree(name, o.maxDepth) : [];
  if (o.recurse.size > 0) {
    const user = o.recurse.has('user') ? o.user : undefined;
    const group = o.recurse.has('group') ? o.group : undefined;
    const withMode = o.recurse.has('mode');
    for (const step of walk) {
      if (!o.recurse.has('ignore_files')) {
        for (const f of step.files) {
          const p = join(step.root, f);
          const isSymlink = isLink(p);
          const c = permsDiffer(p, {
            user,
            group,
            mode: withMode && (o.followSymlinks || !isSymlink) ? o.fileMode : undefined,
            followSymlinks: o.followSymlinks,
          });
          if (Object.keys(c).length > 0) changes[p] = c;
        }
      }
      if (!o.recurse.has('ignore_dirs')) {
        for (const d of step.dirs) {
          const p = join(step.root, d);
          const c = permsDiffer(p, { user, group, mode: withMode ? o.dirMode : undefined, followSymlinks: o.followSymlinks });
          if (Object.keys(c).length > 0) changes[p] = c;
        }
      }
    }
  }
  if (!o.childrenOnly) {
    if (!isDir(name)) changes[name] = { directory: 'new' };
    else {
      const c = permsDiffer(name, { user: o.user, group: o.group, mode: o.dirMode, followSymlinks: o.followSymlinks });
      if (Object.keys(c).length > 0) changes[name] = c;
    }
  }
  if (o.clean && isDir(name)) {
    for (const p of cleanDir(name, o.keep, o.excludePat, true)) changes[p] = { removed: 'Removed due to clean' };
  }
  if (!isDir(name)) changes[name] = { directory: 'new' };
  if (Object.keys(changes).length > 0) {
    const lines = ['The following files will be changed:\n'];
    for (const [p, c] of Object.entries(changes)) for (const [k, v] of Object.entries(c)) lines.push(`${p}: ${k} - ${String(v)}\n`);
    return { result: null, comment: lines.join(''), changes };
  }
  return { result: true, comment: `The directory ${name} is in the correct state`, changes };
}
