import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { builtinModules, fixture } from '../fixtures';

describe('test module: the loader view', () => {
  it('provider and providers name where modules come from', async () => {
    const h = await createHarness({ moduleDirs: [fixture('module_dirs')] });
    expect((await h.call('test.provider', ['hello'])).return).toBe('hello');
    expect((await h.call('test.provider', ['cmd'])).return).toBe('cmd');
    expect((await h.call('test.provider', ['nope'])).return).toBe('');
    expect((await h.call('test.providers')).return).toEqual(Object.fromEntries([...builtinModules(), 'hello'].map((m) => [m, m])));
  });

  it('not_loaded lists module files that gave no available module', async () => {
    const h = await createHarness({ moduleDirs: [fixture('module_dirs'), fixture('broken_dir')] });
    expect((await h.call('test.not_loaded')).return).toEqual(['a-broken', 'b-needs-unknown', 'd-nothing', 'linuxonly']);
  });

  it('conf_test reads test.foo, unconfigured by default', async () => {
    expect((await (await createHarness()).call('test.conf_test')).return).toBe('unconfigured');
    expect((await (await createHarness({ config: { 'test.foo': 'bar' } })).call('test.conf_test')).return).toBe('bar');
  });

  it('module_report lines up modules and functions', async () => {
    const h = await createHarness();
    const r = (await h.call('test.module_report')).return as Record<string, string[]>;
    expect(r.modules).toEqual(builtinModules());
    expect(r.functions).toContain('test.ping');
    expect(r.function_subs).toEqual(r.functions);
    expect(r.missing_attrs).toEqual([]);
    expect(r.missing_subs).toEqual([]);
  });
});
