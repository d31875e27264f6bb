/** The minion's `<cachedir>/proc`: one msgpack file per running job, as Salt keeps it. */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcDir } from '../../../src/core/minion/proc-dir';
import { decode } from '../../../src/core/protocol/msgpack';
import { tempDirs } from '../../support/temp-dirs';

const tmp = tempDirs('brine-proc-');
const procDir = () => new ProcDir(join(tmp(), 'cache', 'proc'));

describe('ProcDir', () => {
  it('makes its folder with the first job (0700), and again when it was removed', () => {
    const proc = procDir();
    proc.write({ pid: process.pid, jid: '20261205000000000001', fun: 'test.ping' });
    expect(statSync(proc.dir).mode & 0o777).toBe(0o700);
    expect(decode(readFileSync(join(proc.dir, '20261205000000000001')))).toEqual({
      pid: process.pid,
      jid: '20261205000000000001',
      fun: 'test.ping',
    });
    rmSync(proc.dir, { recursive: true });
    proc.write({ pid: process.pid, jid: '20261205000000000002', fun: 'test.ping' });
    expect(readdirSync(proc.dir)).toEqual(['20261205000000000002']);
    proc.remove('20261205000000000002');
    expect(readdirSync(proc.dir)).toEqual([]);
    // A record already gone (a saltutil.clear_cache meanwhile) is no error.
    expect(() => proc.remove('20261205000000000002')).not.toThrow();
  });

  it('writes nothing for a jid that is not a plain file name', () => {
    const proc = procDir();
    proc.write({ pid: process.pid, jid: '../escape' });
    expect(() => readdirSync(proc.dir)).toThrow(/ENOENT/);
  });
});
