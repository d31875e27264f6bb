import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dirList,
  fileEnvs,
  fileFind,
  fileHash,
  fileHashAndStat,
  fileList,
  fileListEmptyDirs,
  findFile,
  serveFile,
  symlinkList,
  type FileServerOptions,
} from '../../../src/core/master/file-server';

let dir: string;
let opts: FileServerOptions;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'brine-fs-'));
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  mkdirSync(join(a, '_modules', 'sub'), { recursive: true });
  mkdirSync(join(b, '_modules'), { recursive: true });
  writeFileSync(join(a, '_modules', 'hello.ts'), 'export const a = 1;\n');
  writeFileSync(join(a, '_modules', 'sub', 'util.js'), 'x');
  writeFileSync(join(b, '_modules', 'hello.ts'), 'shadowed');
  writeFileSync(join(b, '_modules', 'other.js'), 'y');
  writeFileSync(join(a, 'top.sls'), '');
  writeFileSync(join(dir, 'secret'), 'outside');
  symlinkSync(join(dir, 'secret'), join(a, '_modules', 'escape.js'));
  opts = { file_roots: { base: [a, b] }, file_buffer_size: 8 };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('file server (roots backend)', () => {
  it('lists files under a prefix across roots, sorted, without escaping links', () => {
    expect(fileList(opts, { cmd: '_file_list', saltenv: 'base', prefix: '_modules' })).toEqual([
      '_modules/hello.ts',
      '_modules/other.js',
      '_modules/sub/util.js',
    ]);
    expect(fileList(opts, { cmd: '_file_list', saltenv: 'base', prefix: '/_modules/sub/' })).toEqual(['_modules/sub/util.js']);
    expect(fileList(opts, { cmd: '_file_list', saltenv: 'base', prefix: '' })).toContain('top.sls');
    expect(fileList(opts, { cmd: '_file_list', saltenv: 'dev', prefix: '' })).toEqual([]);
    expect(fileList(opts, { cmd: '_file_list', saltenv: 'base', prefix: '../' })).toEqual([]);
    expect(fileList(opts, { cmd: '_file_list' })).toEqual([]);
  });

  it('finds the first root holding a file and refuses paths escaping the root', () => {
    expect(findFile(opts.file_roots, '_modules/hello.ts', 'base')?.path).toBe(join(dir, 'a', '_modules', 'hello.ts'));
    expect(findFile(opts.file_roots, '../secret', 'base')).toBeNull();
    expect(findFile(opts.file_roots, '_modules/../../secret', 'base')).toBeNull();
    expect(findFile(opts.file_roots, join(dir, 'secret'), 'base')).toBeNull();
    expect(findFile(opts.file_roots, '_modules/escape.js', 'base')).toBeNull();
    expect(findFile(opts.file_roots, '_modules', 'base')).toBeNull();
  });

  it('serves chunks of file_buffer_size from loc, then an empty chunk', () => {
    const load = { cmd: '_serve_file', path: '_modules/hello.ts', saltenv: 'base' };
    expect(serveFile(opts, { ...load, loc: 0 })).toEqual({ data: Buffer.from('export c'), dest: '_modules/hello.ts' });
    expect(serveFile(opts, { ...load, loc: 16 })).toEqual({ data: Buffer.from(' 1;\n'), dest: '_modules/hello.ts' });
    expect(serveFile(opts, { ...load, loc: 20 })).toEqual({ data: Buffer.alloc(0), dest: '_modules/hello.ts' });
    expect(serveFile(opts, { ...load, path: 'salt://_modules/other.js?saltenv=base', loc: 0 }).data).toEqual(Buffer.from('y'));
    const gz = serveFile(opts, { ...load, loc: 0, gzip: 5 });
    expect(gz.gzip).toBe(5);
    expect(gunzipSync(gz.data as Buffer).toString()).toBe('export c');
  });

  it("answers Salt's empty reply for missing fields or files, and refuses garbage", () => {
    expect(serveFile(opts, { cmd: '_serve_file', path: 'nope', loc: 0, saltenv: 'base' })).toEqual({ data: '', dest: '' });
    expect(serveFile(opts, { cmd: '_serve_file', path: '_modules/hello.ts', saltenv: 'base' })).toEqual({ data: '', dest: '' });
    expect(serveFile(opts, { cmd: '_serve_file', path: '../secret', loc: 0, saltenv: 'base' })).toEqual({ data: '', dest: '' });
    expect(() => serveFile(opts, { cmd: '_serve_file', path: '_modules/hello.ts', loc: -1, saltenv: 'base' })).toThrow(
      expect.objectContaining({ code: 'BAD_LOAD' }),
    );
    expect(() => serveFile(opts, { cmd: '_serve_file', path: '_modules/hello.ts', loc: 0, saltenv: 'base', gzip: 'max' })).toThrow(
      expect.objectContaining({ code: 'BAD_LOAD' }),
    );
  });
});

describe('file server: the other requests a Salt minion sends', () => {
  beforeEach(() => {
    mkdirSync(join(dir, 'a', 'empty'));
    mkdirSync(join(dir, 'b', 'conf'));
    writeFileSync(join(dir, 'b', 'conf', 'app.conf'), 'port=80\n');
    symlinkSync('app.conf', join(dir, 'b', 'conf', 'current.conf'));
    opts.file_roots.dev = [join(dir, 'b')];
  });

  it('_dir_list: every directory below the roots, sorted, with a prefix filter', () => {
    expect(dirList(opts, { saltenv: 'base', prefix: '' })).toEqual(['_modules', '_modules/sub', 'conf', 'empty']);
    expect(dirList(opts, { saltenv: 'base', prefix: '_mod' })).toEqual(['_modules', '_modules/sub']);
    expect(dirList(opts, { saltenv: 'nope' })).toEqual([]);
    expect(dirList(opts, {})).toEqual([]);
  });

  it('_file_list_emptydirs: the directories holding nothing', () => {
    expect(fileListEmptyDirs(opts, { saltenv: 'base', prefix: '' })).toEqual(['empty']);
    expect(fileListEmptyDirs(opts, { saltenv: 'dev', prefix: '' })).toEqual([]);
  });

  it('_symlink_list: link -> target as written, links leaving the root left out', () => {
    expect(symlinkList(opts, { saltenv: 'base', prefix: '' })).toEqual({ 'conf/current.conf': 'app.conf' });
    expect(symlinkList(opts, { saltenv: 'base', prefix: '_modules' })).toEqual({});
    expect(symlinkList(opts, { prefix: '' })).toEqual({});
  });

  it('_file_list includes files reached through a link inside the root; a prefix is a string prefix as in Salt', () => {
    expect(fileList(opts, { saltenv: 'dev', prefix: '' })).toEqual([
      '_modules/hello.ts',
      '_modules/other.js',
      'conf/app.conf',
      'conf/current.conf',
    ]);
    expect(fileList(opts, { saltenv: 'base', prefix: '_modules/h' })).toEqual(['_modules/hello.ts']);
  });

  it('_file_envs: the saltenvs, sorted', () => {
    expect(fileEnvs(opts)).toEqual(['base', 'dev']);
  });

  it("_file_find: Salt's fnd with stat and back, or empty path and rel", () => {
    const fnd = fileFind(opts, { path: '_modules/hello.ts', saltenv: 'base' });
    const st = statSync(join(dir, 'a', '_modules', 'hello.ts'));
    expect(fnd).toEqual({
      path: join(dir, 'a', '_modules', 'hello.ts'),
      rel: '_modules/hello.ts',
      back: 'roots',
      stat: [
        st.mode,
        st.ino,
        st.dev,
        st.nlink,
        st.uid,
        st.gid,
        20,
        Math.floor(st.atimeMs / 1000),
        Math.floor(st.mtimeMs / 1000),
        Math.floor(st.ctimeMs / 1000),
      ],
    });
    expect(fileFind(opts, { path: 'salt://conf/app.conf?saltenv=dev', saltenv: 'base' }).rel).toBe('conf/app.conf');
    expect(fileFind(opts, { path: 'missing', saltenv: 'base' })).toEqual({ path: '', rel: '' });
    expect(fileFind(opts, { path: '../secret', saltenv: 'base' })).toEqual({ path: '', rel: '' });
    expect(fileFind(opts, { saltenv: 'base' })).toEqual({ path: '', rel: '' });
  });

  it('_file_hash: {hsum, hash_type} with the master hash_type; "" when missing, as Salt answers', () => {
    const sha256 = createHash('sha256').update('export const a = 1;\n').digest('hex');
    expect(fileHash(opts, { path: '_modules/hello.ts', saltenv: 'base' })).toEqual({ hsum: sha256, hash_type: 'sha256' });
    expect(fileHash({ ...opts, hash_type: 'md5' }, { path: 'salt://_modules/hello.ts', saltenv: 'base' })).toEqual({
      hsum: createHash('md5').update('export const a = 1;\n').digest('hex'),
      hash_type: 'md5',
    });
    // A changed file gets a new hash (the memo follows mtime and size).
    writeFileSync(join(dir, 'a', '_modules', 'hello.ts'), 'changed, and longer\n');
    expect(fileHash(opts, { path: '_modules/hello.ts', saltenv: 'base' })).toEqual({
      hsum: createHash('sha256').update('changed, and longer\n').digest('hex'),
      hash_type: 'sha256',
    });
    expect(fileHash(opts, { path: 'missing', saltenv: 'base' })).toBe('');
    expect(fileHash(opts, { path: '_modules/hello.ts' })).toBe('');
    expect(() => fileHash({ ...opts, hash_type: 'nonsense' }, { path: 'top.sls', saltenv: 'base' })).toThrow(/hash_type/);
  });

  it('_file_hash_and_stat: [hash, stat], or ["", null]', () => {
    const [hash, stat] = fileHashAndStat(opts, { path: 'top.sls', saltenv: 'base' });
    expect(hash).toEqual({ hsum: createHash('sha256').update('').digest('hex'), hash_type: 'sha256' });
    expect(stat).toHaveLength(10);
    expect(stat![6]).toBe(0);
    expect(fileHashAndStat(opts, { path: 'nope', saltenv: 'base' })).toEqual(['', null]);
  });
});
