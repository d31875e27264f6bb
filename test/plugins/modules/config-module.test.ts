import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';

const CONFIG = { id: 'web1', 'redis.host': 'cache1', shared: 'from-opts', nested: { a: { b: 1 } } };
const GRAINS = { os: 'Debian', shared: 'from-grains', role: { web: true }, systemd: { version: '252' } };
const PILLAR = { app: { port: 8080 }, shared: 'from-pillar', master: { file_roots: { base: ['/srv/salt'] }, only_master: 'm' } };

describe('config module', () => {
  it("get walks opts, grains, pillar, master, then Salt's defaults", async () => {
    const h = await createHarness({ config: CONFIG, grains: GRAINS, pillar: PILLAR });
    const get = async (...a: unknown[]): Promise<unknown> =>
      (await h.call('config.get', a.slice(0, 1), a[1] as Record<string, unknown>)).return;
    expect(await get('shared')).toBe('from-opts');
    expect(await get('shared', { omit_opts: true })).toBe('from-grains');
    expect(await get('shared', { omit_opts: true, omit_grains: true })).toBe('from-pillar');
    expect(await get('nested:a:b')).toBe(1);
    expect(await get('role:web')).toBe(true);
    expect(await get('app:port')).toBe(8080);
    expect(await get('only_master')).toBe('m');
    expect(await get('mongo.port')).toBe(27017);
    expect(await get('nope')).toBe('');
    expect(await get('nope', { default: 'dflt' })).toBe('dflt');
    expect(await get('app/port', { delimiter: '/' })).toBe(8080);
    expect(await get('virt', { merge: 'recurse' })).toEqual({ tunnel: false, images: '/srv/salt-images' });
  });

  it('option: top-level keys only, wildcard globs, defaults; items is the minion config', async () => {
    const h = await createHarness({ config: CONFIG, grains: GRAINS, pillar: PILLAR });
    expect((await h.call('config.option', ['redis.host'])).return).toBe('cache1');
    expect((await h.call('config.option', ['redis.port'])).return).toBe(6379);
    expect((await h.call('config.option', ['os'])).return).toBe('Debian');
    expect((await h.call('config.option', ['nested:a'])).return).toBe('');
    expect((await h.call('config.option', ['redis.*'], { wildcard: true })).return).toEqual({
      'redis.host': 'cache1',
      'redis.db': '0',
      'redis.port': 6379,
    });
    expect((await h.call('config.option', ['shared'], { omit_all: true })).return).toBe('');
    expect((await h.call('config.items')).return).toMatchObject({ id: 'web1', 'redis.host': 'cache1' });
  });
});

describe('grains module: equals, fetch, delkey', () => {
  it('equals compares as text, fetch is get, delkey removes the static grain', async () => {
    const h = await createHarness({ grains: GRAINS });
    expect((await h.call('grains.equals', ['systemd:version', 252])).return).toBe(true);
    expect((await h.call('grains.equals', ['os', 'RedHat'])).return).toBe(false);
    expect((await h.call('grains.fetch', ['role:web'])).return).toBe(true);
    expect((await h.call('grains.delkey', ['os'])).return).toEqual({ comment: '', changes: { os: null }, result: true });
    expect((await h.call('grains.get', ['os'], { default: 'gone' })).return).toBe('gone');
  });
});
