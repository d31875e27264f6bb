/**
 * MinionDataCache holds grain values that minions send alike once (SharedValues): the same
 * objects for every minion, frozen, released when a minion's grains change or it is removed, and
 * the data on disk and after a restart are as sent.
 */
import { describe, expect, it } from 'vitest';
import { MinionDataCache } from '../../../src/core/master/minion-data-cache';
import { decode, encode } from '../../../src/core/protocol/msgpack';
import { tempDirs } from '../../support/temp-dirs';

const cacheDir = tempDirs('brine-datacache-');

/** Grains as the master gets them: decoded from msgpack, a fresh object per minion. */
function grains(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return decode(
    encode({
      id,
      os: 'Debian',
      cpu_flags: ['fpu', 'vme', 'de', 'pse', 'tsc', 'msr', 'pae', 'mce', 'cx8', 'apic'],
      path: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      ip4_interfaces: { lo: ['127.0.0.1'], eth0: [`10.0.0.${id.length}`] },
      mem_total: 2048,
      ...extra,
    }),
  ) as Record<string, unknown>;
}

describe('MinionDataCache shares grain values between minions', () => {
  it('gives two minions the same objects for the values they share, and their own for the rest', async () => {
    const cache = new MinionDataCache(cacheDir());
    cache.update('web1', { grains: grains('web1') });
    cache.update('db222', { grains: grains('db222') });
    const a = cache.grains('web1')!;
    const b = cache.grains('db222')!;
    expect(a.cpu_flags).toBe(b.cpu_flags);
    expect(a.path).toBe(b.path);
    expect(a.ip4_interfaces).not.toBe(b.ip4_interfaces);
    expect(a).toEqual(grains('web1'));
    expect(b).toEqual(grains('db222'));
    // Shared values cannot be changed through one minion's grains.
    expect(Object.isFrozen(a.cpu_flags)).toBe(true);
    expect(() => (a.cpu_flags as string[]).push('sse')).toThrow(TypeError);
    // cpu_flags, path and each minion's ip4_interfaces; short values stay per minion.
    expect(cache.sharedGrainValues).toBe(4);
    // Its writes land before the folder is removed, not after (they would make it again).
    await cache.flush();
  });

  it('releases the values a minion no longer sends, and all of them when it is removed', async () => {
    const cache = new MinionDataCache(cacheDir());
    cache.update('web1', { grains: grains('web1') });
    cache.update('db222', { grains: grains('db222') });
    cache.update('web1', { grains: grains('web1', { path: '/opt/bin:/usr/bin:/bin:/usr/local/bin' }) });
    expect(cache.grains('web1')!.path).toBe('/opt/bin:/usr/bin:/bin:/usr/local/bin');
    expect(cache.sharedGrainValues).toBe(5);
    // A pillar-only update keeps the grains (and their references) as they are.
    cache.update('web1', { pillar: { role: 'web' } });
    expect(cache.grains('web1')!.path).toBe('/opt/bin:/usr/bin:/bin:/usr/local/bin');
    expect(cache.sharedGrainValues).toBe(5);
    cache.remove('web1');
    expect(cache.sharedGrainValues).toBe(3);
    cache.remove('db222');
    expect(cache.sharedGrainValues).toBe(0);
    await cache.flush();
  });

  it('writes the grains as sent and reads them back, shared again, after a restart', async () => {
    const dir = cacheDir();
    const cache = new MinionDataCache(dir);
    cache.update('web1', { grains: grains('web1', { ['__proto__']: 'a grain named __proto__, kept as data' }) });
    cache.update('db222', { grains: grains('db222') });
    await cache.flush();
    const again = new MinionDataCache(dir);
    expect(again.grains('web1')).toEqual(cache.grains('web1'));
    expect(Object.hasOwn(again.grains('web1')!, '__proto__')).toBe(true);
    expect(again.grains('web1')!.cpu_flags).toBe(again.grains('db222')!.cpu_flags);
  });

  it('writes a grain beyond 2^53 (a bigint from msgpack) as its decimal text', async () => {
    const dir = cacheDir();
    const cache = new MinionDataCache(dir);
    cache.update('big1', { grains: grains('big1', { disk_bytes: 2n ** 64n - 1n }) });
    await cache.flush();
    expect(new MinionDataCache(dir).grains('big1')!.disk_bytes).toBe('18446744073709551615');
  });

  it('writes many minions in parallel batches, the latest data of each, changes made meanwhile too', async () => {
    const dir = cacheDir();
    const cache = new MinionDataCache(dir);
    const ids = Array.from({ length: 300 }, (_, i) => `m${i}`);
    for (const id of ids) cache.update(id, { grains: grains(id, { round: 1 }) });
    // a second change of some minions while the first writes are under way
    await new Promise((resolve) => setImmediate(resolve));
    for (const id of ids.slice(0, 100)) cache.update(id, { grains: grains(id, { round: 2 }) });
    await cache.flush();
    const again = new MinionDataCache(dir);
    for (const [i, id] of ids.entries()) expect(again.grains(id)?.round).toBe(i < 100 ? 2 : 1);
  });
});
