/**
 * The minion functions SaltGUI's Beacons, Schedules and Mine pages call (saltgui-calls.md:
 * beacons.list, beacons.list_available, schedule.list with return_yaml=False, mine.valid,
 * pillar.obfuscate), answered with Salt 3007's shapes (salt/modules/beacons.py, schedule.py,
 * mine.py, config.py, pillar.py).
 */
import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { loadYaml } from '../../../src/core/pycompat';

const CONFIG = {
  id: 'web1',
  mine_functions: { 'test.ping': [], eth0: [{ mine_function: 'test.arg' }, 'x', { allow_tgt: 'web*' }, { k: 1 }] },
  beacons: { load: [{ averages: { '1m': [0, 2] } }] },
  schedule: {
    enabled: true,
    job1: { function: 'test.ping', minutes: 60, bogus: 1, splay: null, run_on_start: 'false' },
    __mine_interval: { function: 'mine.update', minutes: 60 },
    off: { function: 'test.ping', enabled: false },
  },
};
const PILLAR = {
  beacons: { diskusage: [{ '/': '63%' }] },
  schedule: { fromPillar: { function: 'test.ping', seconds: 10, _seconds: 10 } },
  mine_functions: { 'test.ping': ['ignored'], 'test.version': [] },
};

describe("SaltGUI's minion functions", async () => {
  const h = await createHarness({ config: CONFIG, pillar: PILLAR });
  const call = async (fun: string, kwargs: Record<string, unknown> = {}, arg: unknown[] = []) => (await h.call(fun, arg, kwargs)).return;

  it("config.merge merges opts over the master pillar and the pillar, as Salt's", async () => {
    expect(await call('config.merge', {}, ['mine_functions'])).toEqual({
      'test.ping': [],
      'test.version': [],
      eth0: CONFIG.mine_functions.eth0,
    });
    expect(Object.keys((await call('config.merge', {}, ['mine_functions'])) as object)).toEqual(['test.ping', 'test.version', 'eth0']);
    expect(await call('config.merge', { omit_opts: true }, ['mine_functions'])).toEqual(PILLAR.mine_functions);
    expect(await call('config.merge', {}, ['id'])).toBe('web1');
    expect(await call('config.merge', { default: 'd' }, ['nope'])).toBe('d');
  });

  it('pillar.obfuscate is pillar.items with every value replaced by its Python type name', async () => {
    const h2 = await createHarness({
      config: { id: 'web1' },
      pillar: { s: 'pw', n: 1, f: 1.5, b: true, z: null, l: ['a', 2], d: { k: 'v' } },
    });
    expect((await h2.call('pillar.obfuscate', [], {})).return).toEqual({
      s: '<str>',
      n: '<int>',
      f: '<float>',
      b: '<bool>',
      z: '<NoneType>',
      l: ['<str>', '<int>'],
      d: { k: '<str>' },
    });
  });

  it('mine.valid lists the mine_functions entries whose function is loaded, None when none', async () => {
    expect(await call('mine.valid')).toEqual({ 'test.ping': [], 'test.version': [], eth0: { 'test.arg': ['x', { k: 1 }] } });
    const bare = await createHarness({ config: { id: 'db1' }, pillar: {} });
    expect((await bare.call('mine.valid', [], {})).return).toBeNull();
  });

  it('beacons.list answers the pillar and option beacons, as YAML by default; none are available', async () => {
    const both = { diskusage: PILLAR.beacons.diskusage, load: CONFIG.beacons.load };
    expect(await call('beacons.list', { return_yaml: false })).toEqual(both);
    expect(await call('beacons.list', { return_yaml: false, include_pillar: false })).toEqual({ load: CONFIG.beacons.load });
    expect(loadYaml(String(await call('beacons.list')))).toEqual({ beacons: both });
    expect(await call('beacons.list_available', { return_yaml: false })).toEqual({ beacons: {} });
    const bare = await createHarness({ config: { id: 'db1' }, pillar: {} });
    expect((await bare.call('beacons.list', [], { return_yaml: false })).return).toEqual({});
  });

  it('schedule.list shows the jobs as Salt does: hidden __ jobs, SCHEDULE_CONF keys only, enabled filled in', async () => {
    const jobs = {
      fromPillar: { function: 'test.ping', seconds: 10, enabled: true },
      enabled: true,
      job1: { function: 'test.ping', minutes: 60, run_on_start: false, enabled: true },
      off: { function: 'test.ping', enabled: false },
    };
    expect(await call('schedule.list', { return_yaml: false })).toEqual(jobs);
    expect(Object.keys((await call('schedule.list', { return_yaml: false, show_all: true })) as object)).toContain('__mine_interval');
    expect(Object.keys((await call('schedule.list', { return_yaml: false, show_disabled: false })) as object)).not.toContain('off');
    expect(Object.keys((await call('schedule.list', { return_yaml: false, where: 'pillar' })) as object)).toEqual(['fromPillar']);
    const yaml = loadYaml(String(await call('schedule.list'))) as { schedule: Record<string, Record<string, unknown>> };
    expect(yaml.schedule.job1).toEqual({ ...jobs.job1, saved: false });
    const bare = await createHarness({ config: { id: 'db1' }, pillar: {} });
    expect((await bare.call('schedule.list', [], { return_yaml: false })).return).toEqual({});
  });
});
