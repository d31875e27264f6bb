/**
 * The test harness's own clean-up: daemons a test file started and did not stop (its clean-up hook
 * timed out) are killed when vitest ends the file's worker, Salt's whole process group with them.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Daemon, killRunningDaemons, REPO } from '../support/cluster';
import { SaltDaemon } from '../support/salt-ref';
import { tempDirs } from '../support/temp-dirs';

const tmp = tempDirs('brine-reap-');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('daemons left running', () => {
  it('killRunningDaemons ends a daemon, and a Salt daemon with its process group', async () => {
    const plain = new Daemon('plain', spawn('sleep', ['600'], { stdio: ['ignore', 'pipe', 'pipe'] }));
    const salt = new SaltDaemon(
      'salt',
      spawn('sh', ['-c', 'sleep 600 & echo "worker $!"; wait'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true }),
    );
    await salt.waitFor(/worker \d+/);
    const worker = Number(/worker (\d+)/.exec(salt.log)![1]);
    killRunningDaemons();
    expect(await plain.exited).toBe(128);
    expect(await salt.exited).toBe(128);
    // The worker was the group's: it was sent SIGKILL with its parent (gone, or a zombie of init's).
    expect(readProcState(worker)).not.toMatch(/^[RSD]/);
  });

  it('a test file that leaves daemons running: vitest ends its worker, and they end with it', async () => {
    const pids = join(tmp(), 'pids.json');
    const run = spawn(
      process.execPath,
      [join(REPO, 'node_modules/vitest/vitest.mjs'), 'run', '--config', 'test/harness/fixtures/vitest.config.mjs'],
      {
        cwd: REPO,
        env: { ...process.env, BRINE_REAP_PIDS: pids },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    run.stdout.on('data', (c: Buffer) => (output += c.toString()));
    run.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((res) => run.on('exit', res));
    expect(code, output).toBe(0);
    const [plain, salt, worker] = JSON.parse(readFileSync(pids, 'utf8')) as number[];
    for (const pid of [plain, salt, worker]) expect(readProcState(pid), `process ${pid}`).not.toMatch(/^[RSD]/);
  }, 60_000);
});

/** The process's state letter from /proc (R, S, D running or waiting; Z a zombie), or '' when gone. */
function readProcState(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '');
  } catch {
    return '';
  }
}
