/** writePrivateFile: the one writer of files for the daemon's user only (session keys, proc records). */
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writePrivateFile } from '../../src/core/private-file';
import { tempDirs } from '../support/temp-dirs';

const tmp = tempDirs('brine-private-file-');
const mode = (path: string) => statSync(path).mode & 0o777;

describe('writePrivateFile', () => {
  it('writes 0600 into a 0700 folder it makes when missing, also after the folder was removed', () => {
    const dir = join(tmp(), 'cache', 'sessions');
    writePrivateFile(join(dir, 'web1'), 'key one');
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, 'web1'))).toBe(0o600);
    expect(readFileSync(join(dir, 'web1'), 'utf8')).toBe('key one');
    rmSync(dir, { recursive: true });
    writePrivateFile(join(dir, 'web1'), Buffer.from('key two'));
    expect(readFileSync(join(dir, 'web1'), 'utf8')).toBe('key two');
  });

  it('throws what is not a missing folder (the path is a folder)', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'web1'));
    expect(() => writePrivateFile(join(dir, 'web1'), 'x')).toThrow(/EISDIR/);
  });
});
