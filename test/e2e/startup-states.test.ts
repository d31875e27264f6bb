/**
 * A real minion with Salt's startup_states: once signed in it applies its highstate from the
 * master's file server by itself, and the master stores the run as a job of the minion's own
 * (jid `req` given a jid), which `salt-run jobs.list_jobs` lists.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForFileText } from '../../scripts/cluster';
import { Cluster } from '../support/cluster';

describe('startup_states', () => {
  let cluster: Cluster;
  let marker: string;
  beforeAll(async () => {
    cluster = await Cluster.create({ auto_accept: true });
    const states = join(cluster.root, 'states');
    mkdirSync(states, { recursive: true });
    marker = join(cluster.root, 'booted.txt');
    writeFileSync(join(states, 'top.sls'), "base:\n  '*':\n    - boot\n");
    writeFileSync(join(states, 'boot.sls'), `marker:\n  file.managed:\n    - name: ${marker}\n    - contents: applied at start\n`);
    // The tree lives under the cluster's root, made by create(): added to the master's config after it.
    appendFileSync(join(cluster.masterDir, 'master'), `file_roots:\n  base:\n    - ${states}\n`);
    await cluster.startMaster();
    await cluster.startMinion({ id: 'boot1', config: { startup_states: 'highstate' } }, 'is ready');
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('applies the highstate by itself once up, and the master keeps the run as a job', async () => {
    expect(await waitForFileText(marker, 'applied at start', 30_000)).toContain('applied at start');
    await cluster.master!.waitFor(/Got return from boot1 for job \d{20}/, 30_000);
    const jobs = await cluster.run('salt-run', ['jobs.list_jobs', '--out', 'json']);
    const listed = Object.values(JSON.parse(jobs.stdout) as Record<string, { Function: string; Target: string }>);
    expect(listed).toContainEqual(expect.objectContaining({ Function: 'state.highstate', Target: 'boot1' }));
  });
});
