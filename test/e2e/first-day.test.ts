/**
 * A Salt admin's first day (issue 13): the commands and flags scripts use, on real binaries.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';

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
