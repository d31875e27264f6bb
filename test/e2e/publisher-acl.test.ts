/**
 * A brine master with Salt's publisher_acl_blacklist, driven with brine's CLI: a blacklisted
 * function or user is refused before anything is published (Salt's AuthorizationError), the rest
 * runs.
 */
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';

describe('publisher_acl_blacklist', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await Cluster.create({ publisher_acl_blacklist: { modules: ['cmd.*'], users: ['nobody-here'] } });
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'm1' }]);
  }, 60_000);
  afterAll(() => cluster?.stop());

  it("refuses a blacklisted function with Salt's AuthorizationError, and publishes nothing", async () => {
    const refused = await cluster.salt('*', 'cmd.run', 'id');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Authorization error occurred.');
    await cluster.master!.waitFor(
      `${userInfo().username} does not have permissions to run cmd.run. Please contact your local administrator if you believe this is in error.`,
    );
    const jobs = await cluster.run('salt-run', ['jobs.list_jobs', '--out', 'json']);
    expect(Object.values(JSON.parse(jobs.stdout) as Record<string, { Function: string }>).map((j) => j.Function)).not.toContain('cmd.run');
  });

  it('runs what the blacklist does not name', async () => {
    const ping = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
    expect(JSON.parse(ping.stdout)).toEqual({ m1: true });
  });
});
