/** The key store's file helpers: stats without exceptions for what is absent, and the content cache. */
import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeyFileCache, statOrUndefined } from '../../../src/core/master/key-files';
import { tempDirs } from '../../support/temp-dirs';

const root = tempDirs('brine-master-keyfiles-');

describe('statOrUndefined', () => {
  it('answers undefined for a missing file, a missing folder and a path through a file', () => {
    const dir = root();
    writeFileSync(join(dir, 'web1'), 'key');
    expect(statOrUndefined(join(dir, 'web1'))?.isFile()).toBe(true);
    expect(statOrUndefined(join(dir, 'db1'))).toBeUndefined();
    expect(statOrUndefined(join(dir, 'gone', 'db1'))).toBeUndefined();
    expect(statOrUndefined(join(dir, 'web1', 'below-a-file'))).toBeUndefined();
  });
});

describe('KeyFileCache', () => {
  it('reads a key once while it is unchanged, sees a change made by another process, and forgets a removed one', () => {
    const dir = root();
    const file = join(dir, 'web1');
    const cache = new KeyFileCache();
    expect(cache.read(file)).toBeUndefined();
    writeFileSync(file, 'first');
    expect(cache.read(file)).toBe('first');
    writeFileSync(file, 'other');
    utimesSync(file, 1, 1); // a different mtime, as any later write has
    expect(cache.read(file)).toBe('other');
    rmSync(file);
    expect(cache.read(file)).toBeUndefined();
    expect(cache.read(dir)).toBeUndefined(); // a folder is not a key
  });
});
