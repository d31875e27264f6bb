/**
 * Real minions (from dist, their built-in modules loaded on first use) with Salt's module filters,
 * driven with brine's CLI: `disable_modules` by Salt's file name and `disable_states`, and
 * `whitelist_modules` by module name. A module kept out answers as Salt's minion does when it has
 * no such function.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from '../support/cluster';

describe('module filters on a minion', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    await cluster.startAccepted([
      { id: 'cut', config: { disable_modules: ['cmdmod'], disable_states: ['cmd'] } },
      { id: 'listed', config: { whitelist_modules: ['test', 'state'] } },
    ]);
  }, 60_000);
  afterAll(() => cluster?.stop());

  const run = async (...args: string[]) => {
    const res = await cluster.salt(...args, '--out', 'json', '--static');
    return JSON.parse(res.stdout) as Record<string, unknown>;
  };

  it('a module disable_modules names by its Salt file (cmdmod) is not there; the others are', async () => {
    expect(await run('cut', 'cmd.run', 'echo hi')).toEqual({ cut: "'cmd.run' is not available." });
    expect(await run('cut', 'test.ping')).toEqual({ cut: true });
    expect(await run('cut', 'sys.list_modules')).toEqual({ cut: expect.not.arrayContaining(['cmd']) });
  });

  it('whitelist_modules keeps every execution module it does not name out', async () => {
    expect(await run('listed', 'test.ping')).toEqual({ listed: true });
    expect(await run('listed', 'grains.items')).toEqual({ listed: "'grains.items' is not available." });
    expect(await run('listed', 'cmd.run', 'echo hi')).toEqual({ listed: "'cmd.run' is not available." });
  });
});
