/**
 * Daemons in the background and their locks (issue 13, bugs 1, 2 and 6): `-d` for every daemon
 * through a real sign-in, a job and a stop; a second master on the same configuration fails in
 * one line naming the pid that holds it, and leaves the running one working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Cluster, freePort, waitForFileText } from '../support/cluster';

let cluster: Cluster;
const started: number[] = [];

beforeAll(async () => {
  cluster = await Cluster.create({ log_level_logfile: 'info' });
}, 60_000);

afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already stopped by the test
    }
  }
  await cluster?.stop();
});

const masterRoot = () => join(cluster.root, 'master');

/** Stops a background daemon by the pid in its pid file; resolves once the file is gone. */
async function stopByPidFile(pidFile: string, logFile: string, role: string): Promise<void> {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  process.kill(pid, 'SIGTERM');
  await waitForFileText(logFile, `Shutting down the Salt ${role}`);
  await new Promise<void>((resolve) => {
    const check = () => (existsSync(pidFile) ? setImmediate(check) : resolve());
    check();
  });
}

function isStackTrace(text: string): boolean {
  return /^\s+at /m.test(text);
}

describe('-d for every daemon', () => {
  it('salt-master -d and salt-minion -d sign in, run a job, and stop by pid', async () => {
    const master = await cluster.run('salt-master', ['-d']);
    expect(master.stderr).toBe('');
    expect(master.code).toBe(0);
    const masterPid = Number(readFileSync(join(masterRoot(), 'var', 'run', 'salt-master.pid'), 'utf8'));
    started.push(masterPid);
    expect(master.stdout).toBe(`salt-master started in the background, pid ${masterPid}\n`);

    const dir = cluster.writeMinionConfig({ id: 'bg1', config: { log_level_logfile: 'info' } });
    const minion = await cluster.run('salt-minion', ['-d'], dir);
    expect(minion.stderr).toBe('');
    expect(minion.code).toBe(0);
    const minionRoot = join(cluster.root, 'minions', 'bg1');
    const minionPidFile = join(minionRoot, 'var', 'run', 'salt-minion.pid');
    const minionLog = join(minionRoot, 'var', 'log', 'salt', 'minion');
    const minionPid = Number(readFileSync(minionPidFile, 'utf8'));
    started.push(minionPid);
    expect(minion.stdout).toBe(`salt-minion started in the background, pid ${minionPid}\n`);

    await waitForFileText(minionLog, 'cached the public key');
    expect((await cluster.saltKey('-A', '-y')).code).toBe(0);
    // The bug: the minion died right here, when it reported ready a second time.
    await waitForFileText(minionLog, 'is ready');
    const ping = await cluster.salt('bg1', 'test.ping');
    expect(ping.stdout).toBe('bg1:\n    True\n');
    expect(ping.code).toBe(0);
    process.kill(minionPid, 0); // still running after the job

    await stopByPidFile(minionPidFile, minionLog, 'Minion');
    await stopByPidFile(join(masterRoot(), 'var', 'run', 'salt-master.pid'), join(masterRoot(), 'var', 'log', 'salt', 'master'), 'Master');
  }, 60_000);
});

describe('a second master on the same configuration', () => {
  let first: number;

  beforeAll(async () => {
    const daemon = await cluster.startMaster();
    first = daemon.child.pid!;
    await cluster.startAccepted([{ id: 'lock1' }]);
  }, 60_000);

  it('fails in one line naming the pid that holds the lock, and touches nothing shared', async () => {
    const rootKey = join(masterRoot(), 'var', 'cache', 'salt', 'master', '.root_key');
    const bus = join(masterRoot(), 'var', 'run', 'salt', 'master', 'master_event_pub.ipc');
    const keyBefore = readFileSync(rootKey, 'utf8');
    const busBefore = statSync(bus).ino;
    for (const args of [[], ['-d']]) {
      const second = await cluster.run('salt-master', args);
      expect(second.code).toBe(1);
      expect(second.stdout).toBe('');
      expect(isStackTrace(second.stderr)).toBe(false);
      expect(second.stderr.trim().split('\n')).toHaveLength(1);
      expect(second.stderr).toContain(`pid ${first}`);
    }
    expect(readFileSync(rootKey, 'utf8')).toBe(keyBefore);
    expect(statSync(bus).ino).toBe(busBefore);
    expect(Number(readFileSync(join(masterRoot(), 'var', 'run', 'salt-master.pid'), 'utf8'))).toBe(first);
    const ping = await cluster.salt('lock1', 'test.ping');
    expect(ping.stdout).toBe('lock1:\n    True\n');
  }, 60_000);

  it('a master whose port is held elsewhere names that pid in one line, with -d too', async () => {
    const port = await freePort();
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const root = join(cluster.root, 'busy');
      const conf = join(root, 'etc', 'salt');
      mkdirSync(conf, { recursive: true });
      writeFileSync(
        join(conf, 'master'),
        stringify({ root_dir: root, interface: '127.0.0.1', publish_port: await freePort(), ret_port: port, keysize: 1024 }),
      );
      for (const args of [[], ['-d']]) {
        const res = await cluster.run('salt-master', args, conf);
        expect(res.code).toBe(1);
        expect(isStackTrace(res.stderr)).toBe(false);
        expect(res.stderr.trim().split('\n')).toHaveLength(1);
        expect(res.stderr).toContain(`pid ${process.pid}`);
        expect(res.stderr).toContain(`127.0.0.1:${port}`);
      }
      // Nothing was written before the port was taken.
      expect(existsSync(join(root, 'var', 'cache', 'salt', 'master', '.root_key'))).toBe(false);
      expect(existsSync(join(root, 'var', 'run', 'salt-master.pid'))).toBe(false);
    } finally {
      holder.close();
    }
  }, 60_000);
});
