import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteJobCache, sqlitePath } from '../../../../src/core/master/job-cache';

const SUPPORT = join(__dirname, 'support');
let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the writer child, kills it with SIGKILL once it has acknowledged `acks` returns; gives the last acknowledged n. */
function writeThenKill(cachedir: string, acks: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', join(SUPPORT, 'ts-register.cjs'), join(SUPPORT, 'write-returns-child.ts'), cachedir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    let lastAck = -1;
    let killed = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const line of lines) {
        const m = /^acked (\d+)$/.exec(line);
        if (m) lastAck = Number(m[1]);
      }
      if (!killed && lastAck + 1 >= acks) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve(lastAck);
      else reject(new Error(`writer exited with ${String(code)} before it was killed: ${err}`));
    });
  });
}

describe('SQLite job cache durability', () => {
  it('a writer killed with -9 loses no return it had acknowledged', async () => {
    dir = mkdtempSync(join(tmpdir(), 'brine-jobcache-kill-'));
    const lastAck = await writeThenKill(dir, 2000);
    expect(lastAck).toBeGreaterThanOrEqual(1999);
    const cache = new SqliteJobCache(sqlitePath({ cachedir: dir }));
    const returns = cache.getReturns('20261202131309576618');
    for (let n = 0; n <= lastAck; n++) {
      expect(returns[`minion-${n}`]?.return).toEqual({ n, blob: 'x'.repeat(200) });
    }
    expect(cache.getJob('20261202131309576618')?.fun).toBe('test.echo');
    cache.close();
  }, 60_000);
});
