import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  lchownSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
  appendFileSync,
  openSync,
  readSync,
  closeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, normalize } from 'node:path';
import { CommandExecutionError, Fn, IShell, InvocationError, Module, arg, fnmatch, inject } from 'brine/plugin';
import {
  HASH_BY_LENGTH,
  absolute,
  expandUser,
  fileHash,
  gidToGroup,
  globPaths,
  groupToGid,
  guard,
  isDir,
  isLink,
  normalizeMode,
  realpathIfExists,
  stats,
  strerror,
  uidToUser,
  userToUid,
} from './file-paths';
import { regex } from './file-edit';
import { FileTextFunctions } from './file-text';

const PATH = { path: arg.string({ nonEmpty: true }) };
const FOLLOW = { path: arg.string({ nonEmpty: true }), follow_symlinks: arg.boolean({ default: true }) };
const OWNER = { user: arg.any({ optional: true }), group: arg.any({ optional: true }), mode: arg.any({ optional: true }) };

@Module('file', {
  doc: 'Manage information about regular files, directories, and special files on the minion',
  available: (grains) => grains.kernel !== 'Windows' || 'The file execution module is for POSIX minions',
})
export class FileModule extends FileTextFunctions {
  constructor(@inject(IShell) shell: IShell) {
    super(shell);
  }

  @Fn({
    summary: 'Return the content of the file',
    examples: ["salt '*' file.read /path/to/file"],
    args: { path: arg.string({ nonEmpty: true }), binary: arg.boolean({ default: false }) },
  })
  read({ path, binary }: { path: string; binary: boolean }): string | Buffer {
    try {
      const data = readFileSync(expandUser(path));
      return binary ? data : data.toString('utf8');
    } catch (err) {
      throw new CommandExecutionError(
        `Unable to read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : (err as Error).message}`,
      );
    }
  }

  @Fn({
    summary: 'Create a file, or update its access and modification times (seconds since the epoch)',
    examples: ["salt '*' file.touch /var/log/emptyfile"],
    args: { name: arg.string({ nonEmpty: true }), atime: arg.any({ optional: true }), mtime: arg.any({ optional: true }) },
  })
  touch({ name, atime, mtime }: { name: string; atime?: unknown; mtime?: unknown }): boolean {
    const p = expandUser(name);
    const time = (v: unknown): number | undefined => {
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v === 'number' || /^\d+$/.test(String(v))) return Number(v);
      throw new InvocationError('atime and mtime must be integers');
    };
    const a = time(atime);
    const m = time(mtime);
    try {
      if (!existsSync(p)) appendFileSync(p, '');
      const now = Date.now() / 1000;
      utimesSync(p, a ?? now, m ?? now);
    } catch (err) {
      throw new CommandExecutionError(strerror(err));
    }
    return existsSync(p);
  }

  @Fn({
    summary: 'Remove a file, a symlink or a whole directory tree',
    examples: ["salt '*' file.remove /tmp/foo"],
    args: PATH,
    kwargs: true,
  })
  remove({ path }: { path: string }): boolean {
    const p = absolute(path);
    try {
      if (isLink(p) || (existsSync(p) && !isDir(p))) {
        unlinkSync(p);
        return true;
      }
      if (isDir(p)) {
        rmSync(p, { recursive: true });
        return true;
      }
    } catch (err) {
      throw new CommandExecutionError(`Could not remove '${p}': ${strerror(err)}`);
    }
    return false;
  }

  @Fn({
    summary: 'Remove an empty directory (or a tree with recurse=True)',
    examples: ["salt '*' file.rmdir /tmp/foo/"],
    args: { path: arg.string({ nonEmpty: true }), recurse: arg.boolean({ default: false }) },
  })
  rmdir({ path, recurse }: { path: string; recurse: boolean }): boolean {
    const p = absolute(path, 'File path must be absolute.');
    if (!isDir(p)) throw new InvocationError('A valid directory was not specified.');
    try {
      rmSync(p, { recursive: recurse });
      return true;
    } catch (err) {
      return strerror(err) as unknown as boolean;
    }
  }

  @Fn({
    summary: 'Create a directory (and its parents) if it does not exist',
    examples: ["salt '*' file.mkdir /opt/jetty/context"],
    args: { dir_path: arg.string({ nonEmpty: true }), ...OWNER },
  })
  mkdir({ dir_path, user, group, mode }: { dir_path: string; user?: unknown; group?: unknown; mode?: unknown }): boolean {
    const dir = normalize(expandUser(dir_path));
    if (!isDir(dir)) this.makedirsPerms(dir, user, group, mode);
    return true;
  }

  @Fn({
    summary: "Ensure the parent directories of path exist; a path ending in '/' makes that directory too",
    examples: ["salt '*' file.makedirs /opt/code/"],
    args: { path: arg.string({ nonEmpty: true }), ...OWNER },
  })
  makedirs({ path, user, group, mode }: { path: string; user?: unknown; group?: unknown; mode?: unknown }): string | null {
    const dir = normalize(dirname(expandUser(path)));
    if (isDir(dir)) return `Directory '${dir}' already exists`;
    if (existsSync(dir)) return `The path '${dir}' already exists and is not a directory`;
    if (!isAbsolute(dir))
      throw new InvocationError(`Recursive creation for path '${dir}' would result in an infinite loop. Please use an absolute path.`);
    this.makedirsPerms(dir, user, group, mode);
    return null;
  }

  /** Each missing directory down to `dir`, with the owner and mode given. */
  private makedirsPerms(dir: string, user: unknown, group: unknown, mode: unknown): void {
    const missing: string[] = [];
    for (let d = dir; !existsSync(d); d = dirname(d)) missing.unshift(d);
    for (const d of missing) {
      guard(() => mkdirSync(d), d);
      if (mode !== undefined && mode !== null) chmodSync(d, parseInt(normalizeMode(mode), 8));
      if (user !== undefined || group !== undefined) this.chown({ path: d, user: user ?? null, group: group ?? null });
    }
  }

  @Fn({
    summary: 'Copy a file or directory (recurse=True for a directory), keeping owner and mode',
    examples: ["salt '*' file.copy /path/to/src /path/to/dst", "salt '*' file.copy /path/to/src_dir /path/to/dst_dir recurse=True"],
    args: {
      src: arg.string({ nonEmpty: true }),
      dst: arg.string({ nonEmpty: true }),
      recurse: arg.boolean({ default: false }),
      remove_existing: arg.boolean({ default: false }),
    },
  })
  copy({ src, dst, recurse, remove_existing }: { src: string; dst: string; recurse: boolean; remove_existing: boolean }): boolean {
    const s = absolute(src, 'File path must be absolute.');
    const d = expandUser(dst);
    if (!existsSync(s)) throw new CommandExecutionError(`No such file or directory '${s}'`);
    const st = statSync(s);
    if (isDir(d) || st.isDirectory()) {
      if (!recurse) throw new InvocationError('Cannot copy overwriting a directory without recurse flag set to true!');
      if (remove_existing) rmSync(d, { recursive: true, force: true });
      try {
        cpSync(s, d, { recursive: true, force: true });
      } catch {
        throw new CommandExecutionError(`Could not copy '${s}' to '${d}'`);
      }
    } else {
      try {
        copyFileSync(s, d);
      } catch {
        throw new CommandExecutionError(`Could not copy '${s}' to '${d}'`);
      }
    }
    chmodSync(d, st.mode & 0o7777);
    try {
      chownSync(d, st.uid, st.gid);
    } catch {
      // Not root: the copy belongs to the minion's user, as Salt's check_perms leaves it.
    }
    return true;
  }

  @Fn({
    summary: 'Move a file or directory',
    examples: ["salt '*' file.move /path/to/src /path/to/dst"],
    args: {
      src: arg.string({ nonEmpty: true }),
      dst: arg.string({ nonEmpty: true }),
      disallow_copy_and_unlink: arg.boolean({ default: false }),
    },
  })
  move({ src, dst, disallow_copy_and_unlink }: { src: string; dst: string; disallow_copy_and_unlink: boolean }): unknown {
    if (disallow_copy_and_unlink) return this.rename({ src, dst });
    const s = absolute(src, 'Source path must be absolute.');
    let d = absolute(dst, 'Destination path must be absolute.');
    // shutil.move: into a directory when the destination is one.
    if (isDir(d)) d = join(d, basename(s));
    try {
      renameSync(s, d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV')
        throw new CommandExecutionError(`Unable to move '${s}' to '${d}': ${strerror(err)}`);
      cpSync(s, d, { recursive: true, preserveTimestamps: true });
      rmSync(s, { recursive: true });
    }
    return { result: true, comment: `'${s}' moved to '${absolute(dst)}'` };
  }

  @Fn({
    summary: 'Rename a file or directory',
    examples: ["salt '*' file.rename /path/to/src /path/to/dst"],
    args: { src: arg.string({ nonEmpty: true }), dst: arg.string({ nonEmpty: true }) },
  })
  rename({ src, dst }: { src: string; dst: string }): boolean {
    const s = absolute(src, 'File path must be absolute.');
    const d = expandUser(dst);
    try {
      renameSync(s, d);
      return true;
    } catch {
      throw new CommandExecutionError(`Could not rename '${s}' to '${d}'`);
    }
  }

  @Fn({
    summary: 'Create a symbolic link path pointing at src',
    examples: ["salt '*' file.symlink /path/to/file /path/to/link"],
    args: {
      src: arg.string({ nonEmpty: true }),
      path: arg.string({ nonEmpty: true }),
      force: arg.boolean({ default: false }),
      atomic: arg.boolean({ default: false }),
      follow_symlinks: arg.boolean({ default: true }),
    },
  })
  symlink(a: { src: string; path: string; force: boolean; atomic: boolean; follow_symlinks: boolean }): boolean {
    const p = expandUser(a.path);
    if (!isAbsolute(p)) throw new InvocationError(`Link path must be absolute: ${p}`);
    const exists = (x: string): boolean => (a.follow_symlinks ? existsSync(x) : isLink(x) || existsSync(x));
    if (isLink(p)) {
      if (normalize(readlinkSync(p)) === normalize(a.src)) return true;
      if (!a.force && !a.atomic) throw new CommandExecutionError(`Found existing symlink: ${p}`);
    }
    if (exists(p) && !a.force && !a.atomic) throw new CommandExecutionError(`Existing path is not a symlink: ${p}`);
    if (a.atomic) {
      const tmp = join(dirname(p), `.${basename(p)}.${process.pid}.${Date.now()}`);
      try {
        symlinkSync(a.src, tmp);
        renameSync(tmp, p);
        return true;
      } catch {
        rmSync(tmp, { force: true });
        throw new CommandExecutionError(`Could not create '${p}'`);
      }
    }
    if ((isLink(p) || exists(p)) && a.force) unlinkSync(p);
    try {
      symlinkSync(a.src, p);
      return true;
    } catch {
      throw new CommandExecutionError(`Could not create '${p}'`);
    }
  }

  @Fn({
    summary: 'Create a hard link',
    examples: ["salt '*' file.link /path/to/file /path/to/link"],
    args: { src: arg.string({ nonEmpty: true }), path: arg.string({ nonEmpty: true }) },
  })
  link({ src, path }: { src: string; path: string }): boolean {
    const s = expandUser(src);
    if (!isAbsolute(s)) throw new InvocationError('File path must be absolute.');
    try {
      linkSync(s, expandUser(path));
      return true;
    } catch {
      throw new CommandExecutionError(`Could not create '${path}'`);
    }
  }

  @Fn({
    summary: 'Return the target of a symbolic link (canonicalize=True: the final target)',
    examples: ["salt '*' file.readlink /path/to/link"],
    args: { path: arg.string({ nonEmpty: true }), canonicalize: arg.boolean({ default: false }) },
  })
  readlink({ path, canonicalize }: { path: string; canonicalize: boolean }): string {
    const p = expandUser(path).replace(/\$(\w+)|\$\{(\w+)\}/g, (m, a: string, b: string) => process.env[a ?? b] ?? m);
    if (!isAbsolute(p)) throw new InvocationError(`Path to link must be absolute: ${p}`);
    if (!isLink(p)) throw new InvocationError(`A valid link was not specified: ${p}`);
    return canonicalize ? realpathIfExists(p) : readlinkSync(p);
  }

  @Fn({ summary: 'Whether the path is a symbolic link', examples: ["salt '*' file.is_link /path/to/link"], args: PATH })
  is_link({ path }: { path: string }): boolean {
    return isLink(expandUser(path));
  }

  @Fn({
    summary: 'Whether the path is a hard link (a regular file with more than one link)',
    examples: ["salt '*' file.is_hardlink /path/to/file"],
    args: PATH,
  })
  is_hardlink({ path }: { path: string }): boolean {
    const st = lstatSync(expandUser(path), { throwIfNoEntry: false });
    return !!st && st.isFile() && st.nlink > 1;
  }

  @Fn({
    summary: 'Return a dict of information about a file: inode, uid, gid, user, group, times, size, mode, type, target',
    examples: ["salt '*' file.stats /etc/passwd"],
    args: {
      path: arg.string({ nonEmpty: true }),
      hash_type: arg.string({ optional: true }),
      follow_symlinks: arg.boolean({ default: true }),
    },
  })
  async stats({
    path,
    hash_type,
    follow_symlinks,
  }: {
    path: string;
    hash_type?: string;
    follow_symlinks: boolean;
  }): Promise<Record<string, unknown>> {
    const p = expandUser(path);
    const ret = stats(p, follow_symlinks);
    if (hash_type) ret.sum = await fileHash(p, hash_type);
    ret.target = follow_symlinks ? realpathIfExists(p) : normalize(p);
    return ret;
  }

  @Fn({
    summary: 'Return the lstat of a path (st_atime, st_ctime, st_gid, st_mode, st_mtime, st_nlink, st_size, st_uid)',
    examples: ["salt '*' file.lstat /path/to/file"],
    args: PATH,
  })
  lstat({ path }: { path: string }): Record<string, number> {
    const p = absolute(path, 'Path to file must be absolute.');
    const st = lstatSync(p, { bigint: true, throwIfNoEntry: false });
    if (!st) return {};
    return {
      st_atime: Number(st.atimeNs) / 1e9,
      st_ctime: Number(st.ctimeNs) / 1e9,
      st_gid: Number(st.gid),
      st_mode: Number(st.mode),
      st_mtime: Number(st.mtimeNs) / 1e9,
      st_nlink: Number(st.nlink),
      st_size: Number(st.size),
      st_uid: Number(st.uid),
    };
  }

  @Fn({ summary: 'Whether the path is a regular file', examples: ["salt '*' file.file_exists /etc/passwd"], args: PATH })
  file_exists({ path }: { path: string }): boolean {
    return statSync(expandUser(path), { throwIfNoEntry: false })?.isFile() ?? false;
  }

  @Fn({ summary: 'Whether the path is a directory', examples: ["salt '*' file.directory_exists /etc"], args: PATH })
  directory_exists({ path }: { path: string }): boolean {
    return isDir(expandUser(path));
  }

  @Fn({ summary: 'Whether a path exists, glob patterns allowed', examples: ["salt '*' file.path_exists_glob /etc/pam*/pass*"], args: PATH })
  path_exists_glob({ path }: { path: string }): boolean {
    return globPaths(expandUser(path)).length > 0;
  }

  @Fn({
    summary: "Test access to a path: mode is 'f' (exists), 'r', 'w' or 'x'",
    examples: ["salt '*' file.access /path/to/file f"],
    args: { path: arg.string({ nonEmpty: true }), mode: arg.any() },
  })
  access({ path, mode }: { path: string; mode: unknown }): boolean {
    const p = absolute(path, 'Path to link must be absolute.');
    const modes: Record<string, number> = { f: constants.F_OK, r: constants.R_OK, w: constants.W_OK, x: constants.X_OK };
    const m =
      typeof mode === 'string' && mode in modes
        ? modes[mode]
        : typeof mode === 'number' && Object.values(modes).includes(mode)
          ? mode
          : undefined;
    if (m === undefined) throw new InvocationError('Invalid mode specified.');
    try {
      accessSync(p, m);
      return true;
    } catch {
      return false;
    }
  }

  @Fn({
    summary: 'Return the hash of a file (md5, sha1, sha224, sha256, sha384, sha512)',
    examples: ["salt '*' file.get_hash /etc/shadow sha512"],
    args: { path: arg.string({ nonEmpty: true }), form: arg.string({ default: 'sha256' }), chunk_size: arg.integer({ default: 65536 }) },
  })
  get_hash({ path, form }: { path: string; form: string }): Promise<string> {
    return fileHash(expandUser(path), form);
  }

  @Fn({
    summary: 'Return the checksum of a file (as get_hash)',
    examples: ["salt '*' file.get_sum /etc/passwd sha512"],
    args: { path: arg.string({ nonEmpty: true }), form: arg.string({ default: 'sha256' }) },
  })
  async get_sum({ path, form }: { path: string; form: string }): Promise<string> {
    const p = expandUser(path);
    if (!existsSync(p)) return 'File not found';
    return fileHash(p, form);
  }

  @Fn({
    summary: "Whether a file matches a hash: 'type:hash', 'type=hash' or a bare hash (the type guessed from its length)",
    examples: ["salt '*' file.check_hash /etc/fstab sha256:e138491e9d5b97023cea823fe17bac22a1f0f6f5e6d0d43cd3e2d1e1f5e8a3c5"],
    args: { path: arg.string({ nonEmpty: true }), file_hash: arg.any() },
  })
  async check_hash({ path, file_hash }: { path: string; file_hash: unknown }): Promise<boolean> {
    if (typeof file_hash !== 'string') throw new InvocationError('hash must be a string');
    const m = /^([^:=]*)[:=](.*)$/s.exec(file_hash);
    let type: string;
    let value: string;
    if (m) {
      [type, value] = [m[1], m[2]];
    } else {
      value = file_hash;
      type = HASH_BY_LENGTH[file_hash.length];
      if (!type) {
        const known = Object.keys(HASH_BY_LENGTH)
          .map((n) => `${HASH_BY_LENGTH[Number(n)]} (${n})`)
          .join(', ');
        throw new InvocationError(
          `Hash ${file_hash} (length: ${file_hash.length}) could not be matched to a supported hash type. The supported hash types and lengths are: ${known}`,
        );
      }
    }
    return (await fileHash(expandUser(path), type)) === value;
  }

  @Fn({ summary: "Return the mode of a file, e.g. '0644'", examples: ["salt '*' file.get_mode /etc/passwd"], args: FOLLOW })
  get_mode({ path, follow_symlinks }: { path: string; follow_symlinks: boolean }): unknown {
    return stats(expandUser(path), follow_symlinks).mode ?? '';
  }

  @Fn({
    summary: 'Set the mode of a file; returns the new mode',
    examples: ["salt '*' file.set_mode /etc/passwd 0644"],
    args: { path: arg.string({ nonEmpty: true }), mode: arg.any() },
  })
  set_mode({ path, mode }: { path: string; mode: unknown }): unknown {
    const p = expandUser(path);
    const m = String(mode).replace(/^[0Oo]+/, '') || '0';
    if (!existsSync(p)) throw new CommandExecutionError(`${p}: File not found`);
    if (!/^[0-7]+$/.test(m)) return `Invalid Mode ${m}`;
    chmodSync(p, parseInt(m, 8));
    return stats(p).mode;
  }

  @Fn({ summary: 'Return the user that owns a file', examples: ["salt '*' file.get_user /etc/passwd"], args: FOLLOW })
  get_user({ path, follow_symlinks }: { path: string; follow_symlinks: boolean }): unknown {
    return stats(expandUser(path), follow_symlinks).user;
  }

  @Fn({ summary: 'Return the group that owns a file', examples: ["salt '*' file.get_group /etc/passwd"], args: FOLLOW })
  get_group({ path, follow_symlinks }: { path: string; follow_symlinks: boolean }): unknown {
    return stats(expandUser(path), follow_symlinks).group;
  }

  @Fn({ summary: 'Return the id of the user that owns a file', examples: ["salt '*' file.get_uid /etc/passwd"], args: FOLLOW })
  get_uid({ path, follow_symlinks }: { path: string; follow_symlinks: boolean }): unknown {
    return stats(expandUser(path), follow_symlinks).uid;
  }

  @Fn({ summary: 'Return the id of the group that owns a file', examples: ["salt '*' file.get_gid /etc/passwd"], args: FOLLOW })
  get_gid({ path, follow_symlinks }: { path: string; follow_symlinks: boolean }): unknown {
    return stats(expandUser(path), follow_symlinks).gid;
  }

  @Fn({
    summary: 'Convert a user name to its uid',
    examples: ["salt '*' file.user_to_uid root"],
    args: { user: arg.any({ optional: true }) },
  })
  user_to_uid({ user }: { user?: unknown }): number | '' {
    return userToUid(user);
  }

  @Fn({ summary: 'Convert a uid to a user name', examples: ["salt '*' file.uid_to_user 0"], args: { uid: arg.integer() } })
  uid_to_user({ uid }: { uid: number }): string | number {
    return uidToUser(uid);
  }

  @Fn({
    summary: 'Convert a group name to its gid',
    examples: ["salt '*' file.group_to_gid root"],
    args: { group: arg.any({ optional: true }) },
  })
  group_to_gid({ group }: { group?: unknown }): number | '' {
    return groupToGid(group);
  }

  @Fn({ summary: 'Convert a gid to a group name', examples: ["salt '*' file.gid_to_group 0"], args: { gid: arg.any() } })
  gid_to_group({ gid }: { gid: unknown }): string | number {
    const n = /^\d+$/.test(String(gid)) ? Number(gid) : groupToGid(gid);
    return n === '' ? '' : gidToGroup(n);
  }

  @Fn({
    summary: 'Change the owner and group of a file',
    description: "Returns None on success; 'User does not exist', 'Group does not exist', 'File not found' lines otherwise.",
    examples: ["salt '*' file.chown /etc/passwd root root"],
    args: { path: arg.string({ nonEmpty: true }), user: arg.any(), group: arg.any() },
  })
  chown({ path, user, group }: { path: string; user: unknown; group: unknown }): string | null {
    const p = expandUser(path);
    let uid = userToUid(user);
    let gid = groupToGid(group);
    let err = '';
    if (uid === '') {
      if (user) err += 'User does not exist\n';
      else uid = -1;
    }
    if (gid === '') {
      if (group) err += 'Group does not exist\n';
      else gid = -1;
    }
    if (!existsSync(p)) {
      if (isLink(p) && !err) {
        lchownSync(p, uid as number, gid as number);
        return null;
      }
      err += 'File not found';
    }
    if (err) return err;
    chownSync(p, uid as number, gid as number);
    return null;
  }

  @Fn({
    summary: 'Change the group of a file',
    examples: ["salt '*' file.chgrp /etc/passwd root"],
    args: { path: arg.string({ nonEmpty: true }), group: arg.any() },
  })
  chgrp({ path, group }: { path: string; group: unknown }): string | null {
    const p = expandUser(path);
    return this.chown({ path: p, user: existsSync(p) ? stats(p).user : false, group });
  }

  @Fn({
    summary: 'Find files under a path, as find(1): name, iname, type (f d l b c p s), maxdepth, mindepth, regex',
    examples: ["salt '*' file.find /etc name='*.conf' type=f maxdepth=1"],
    args: { path: arg.string({ nonEmpty: true }) },
    varargs: 'actions',
    kwargs: true,
  })
  find({ path, kwargs }: { path: string; actions: unknown[]; kwargs: Record<string, unknown> }): string[] | string {
    const opts = Object.fromEntries(Object.entries(kwargs).filter(([k]) => !k.startsWith('__')));
    const known = ['name', 'iname', 'type', 'maxdepth', 'mindepth', 'regex', 'iregex', 'print'];
    const unknown = Object.keys(opts).filter((k) => !known.includes(k));
    if (unknown.length > 0) return `error: invalid option(s): ${unknown.join(', ')} (brine's file.find knows ${known.join(', ')})`;
    const types = String(opts.type ?? '').replace(/[ ,]/g, '');
    const typeChar = (full: string, st: Stats): boolean => {
      if (!types) return true;
      const c = st.isSymbolicLink()
        ? 'l'
        : st.isDirectory()
          ? 'd'
          : st.isFile()
            ? 'f'
            : st.isBlockDevice()
              ? 'b'
              : st.isCharacterDevice()
                ? 'c'
                : st.isFIFO()
                  ? 'p'
                  : 's';
      return types.includes(c) && full !== '';
    };
    const maxdepth = opts.maxdepth === undefined ? Infinity : Number(opts.maxdepth);
    const mindepth = opts.mindepth === undefined ? 0 : Number(opts.mindepth);
    const name = opts.name === undefined ? null : String(opts.name);
    const iname = opts.iname === undefined ? null : String(opts.iname).toLowerCase();
    const re = opts.regex !== undefined ? regex(String(opts.regex), 0) : opts.iregex !== undefined ? regex(String(opts.iregex), 2) : null;
    const ret: string[] = [];
    const walk = (dir: string, depth: number): void => {
      const st = lstatSync(dir, { throwIfNoEntry: false });
      if (!st) return;
      const base = basename(dir);
      const ok =
        depth >= mindepth &&
        typeChar(dir, st) &&
        (name === null || fnmatch(name, base)) &&
        (iname === null || fnmatch(iname, base.toLowerCase())) &&
        (re === null || ((re.lastIndex = 0), re.test(dir)));
      if (ok) ret.push(dir);
      if (st.isDirectory() && depth < maxdepth) {
        let entries: string[] = [];
        try {
          entries = readdirSync(dir);
        } catch {
          return;
        }
        for (const e of entries) walk(join(dir, e), depth + 1);
      }
    };
    for (const root of globPaths(expandUser(path))) walk(root, 0);
    return ret.sort();
  }

  @Fn({ summary: 'Return the names in a directory, with . and ..', examples: ["salt '*' file.readdir /path/to/dir/"], args: PATH })
  readdir({ path }: { path: string }): string[] {
    const p = absolute(path, 'Dir path must be absolute.');
    if (!isDir(p)) throw new InvocationError('A valid directory was not specified.');
    return ['.', '..', ...readdirSync(p)];
  }

  @Fn({
    summary: 'Return the total size in bytes of the files under a path (each inode once)',
    examples: ["salt '*' file.diskusage /path/to/check"],
    args: PATH,
  })
  diskusage({ path }: { path: string }): number {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st?.isFile()) return st.size;
    let total = 0;
    const seen = new Set<number>();
    const walk = (dir: string): void => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = join(dir, e.name);
        if (e.isDirectory()) walk(full);
        else {
          const s = statSync(full, { throwIfNoEntry: false });
          if (!s || seen.has(s.ino)) continue;
          seen.add(s.ino);
          total += s.size;
        }
      }
    };
    walk(path);
    return total;
  }

  @Fn({
    summary: 'Truncate a file to the given length in bytes',
    examples: ["salt '*' file.truncate /path/to/file 512"],
    args: { path: arg.string({ nonEmpty: true }), length: arg.integer({ min: 0 }) },
  })
  truncate({ path, length }: { path: string; length: number }): null {
    guard(() => truncateSync(expandUser(path), length), path);
    return null;
  }

  @Fn({ summary: 'Return the last part of a path', examples: ["salt '*' file.basename 'test/test.config'"], args: PATH })
  basename({ path }: { path: string }): string {
    return path.endsWith('/') ? '' : basename(path);
  }

  @Fn({ summary: 'Return the directory part of a path', examples: ["salt '*' file.dirname 'test/path/filename.config'"], args: PATH })
  dirname({ path }: { path: string }): string {
    const at = path.lastIndexOf('/');
    if (at === -1) return '';
    const head = path.slice(0, at + 1);
    return /^\/+$/.test(head) ? head : head.replace(/\/+$/, '');
  }

  @Fn({ summary: 'Join path parts, as os.path.join', examples: ["salt '*' file.join '/' 'usr' 'local' 'bin'"], args: {}, varargs: 'parts' })
  join({ parts }: { parts: unknown[] }): string {
    let out = '';
    for (const part of parts.map(String)) {
      if (part.startsWith('/')) out = part;
      else if (out === '' || out.endsWith('/')) out += part;
      else out += `/${part}`;
    }
    return out;
  }

  @Fn({ summary: 'Normalize a path (collapse ., .. and repeated slashes)', examples: ["salt '*' file.normpath 'a/b/c/..'"], args: PATH })
  normpath({ path }: { path: string }): string {
    const n = normalize(path);
    return n.length > 1 ? n.replace(/\/$/, '') : n;
  }
}
