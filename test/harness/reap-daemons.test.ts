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
    // The worker was the group's: it was sent SIGKILL with its parent.
    expect(killed(worker), `process ${worker}`).toBe(true);
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
    for (const pid of [plain, salt, worker]) expect(killed(pid), `process ${pid}`).toBe(true);
  }, 60_000);
});

/**
 * Whether a process was killed: gone, a zombie, exiting, or with SIGKILL pending. A SIGKILL sent
 * to a process that is not our child is acted on asynchronously, so right after kill() the
 * process may still show as running for a moment, with the signal pending.
 */
function killed(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return true; // gone
  }
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1] ?? '';
  if (/^[ZX]/.test(field('State'))) return true;
  const sigkill = 1n << 8n; // signal 9
  return [field('SigPnd'), field('ShdPnd')].some((hex) => hex !== '' && (BigInt(`0x${hex}`) & sigkill) !== 0n) || exiting(pid);
}

/** The kernel's PF_EXITING flag in /proc/<pid>/stat: the process is on its way out. */
function exiting(pid: number): boolean {
  try {
    const flags = Number(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')[6],
    );
    return (flags & 0x4) !== 0;
  } catch {
    return true;
  }
}
