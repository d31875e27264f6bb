import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileList, findFile, serveFile, type FileServerOptions } from '../../../src/core/master/file-server';

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
