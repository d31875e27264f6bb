/**
 * A Salt admin's first day (issue 13): the commands and flags scripts use, on real binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, freePort } from '../support/cluster';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.create();
  await cluster.startMaster();
  await cluster.startAccepted([{ id: 'day1' }]);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

describe('cmd.run through salt', () => {
  it("cmd.run 'sleep 10' timeout=2 answers as Salt's: the timeout text and exit code 1", async () => {
    const started = Date.now();
    const res = await cluster.salt('day1', 'cmd.run', 'sleep 10', 'timeout=2', '-t', '20');
    expect(res.stdout).toBe('day1:\n    sleep 10 : Timed out after 2 seconds\n');
    expect(res.stderr).toBe('ERROR: Minions returned with non-zero exit code\n');
    expect(res.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(9000);
  }, 30_000);
});

describe('salt-call signs in first, as Salt does', () => {
  it('with the master down: Salt\'s line on stderr, exit 1, nothing run', async () => {
    const dir = cluster.writeMinionConfig({ id: 'lonely', config: { master_port: await freePort(), auth_tries: 1, auth_timeout: 1 } });
    const started = Date.now();
    const res = await cluster.run('salt-call', ['test.ping'], dir);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe('Attempt to authenticate with the salt master failed with timeout error\n');
    expect(res.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);

  it('with its key not accepted yet: Salt\'s question, exit 2', async () => {
    const dir = cluster.writeMinionConfig({ id: 'newcomer', config: { auth_tries: 1, auth_timeout: 5 } });
    const res = await cluster.run('salt-call', ['test.ping'], dir);
    expect(res.stdout).toBe('Minion failed to authenticate with the master, has the minion key been accepted?\n');
    expect(res.code).toBe(2);
  }, 30_000);

  it('with the master up and the key accepted: the return', async () => {
    const res = await cluster.run('salt-call', ['test.ping'], cluster.minionDir('day1'));
    expect(res.stdout).toBe('local:\n    True\n');
    expect(res.code).toBe(0);
  }, 30_000);
});
