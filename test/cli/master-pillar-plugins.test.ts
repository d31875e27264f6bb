/**
 * The master's plugins in pillar compiles (master-pillar-plugins.ts), in process: an ext_pillar
 * source published as an npm package (test/plugins/fixtures/ext-pillar-packages) loads from the
 * master's plugin_dirs and feeds the pillar; `salt['mod.fun'](...)` in a pillar template runs the
 * master's own execution functions, asynchronous ones included; a function the master lacks is
 * Jinja's undefined error, logged on the master with `_errors` for the minion, as Salt's master gives.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MasterConfig } from '../../src/core/config';
import { createLogging } from '../../src/core/log';
import { MinionDataCache } from '../../src/core/master/minion-data-cache';
import { MasterPillar } from '../../src/core/master/pillar-service';
import { masterPillarPlugins } from '../../src/cli/master-pillar-plugins';
import { KeyStore } from '../../src/core/master/key-store';
import { MasterFunctions } from '../../src/runners/master-functions';

const root = mkdtempSync(join(tmpdir(), 'brine-master-pillar-plugins-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

write('pillar/top.sls', "base:\n  '*':\n    - calls\n  'broken':\n    - broken\n");
write('pillar/calls.sls', "echo: {{ salt['test.echo']('from-master') }}\nshell: {{ salt['cmd.run']('echo async-ok') }}\n");
write('pillar/broken.sls', "x: {{ salt['nosuch.fun']() }}\n");

const config = {
  cachedir: join(root, 'cache'),
  pillar_roots: { base: [join(root, 'pillar')] },
  plugin_dirs: [join(__dirname, '..', 'plugins', 'fixtures', 'ext-pillar-packages')],
  module_dirs: [],
  ext_pillar: [{ roles: { roles: { web1: 'web' } } }],
} as unknown as MasterConfig;
const logging = createLogging({ level: 'critical', console: false });
// The master log, where Salt's master writes the cause of a pillar render error.
const logged: string[] = [];
const log = Object.assign(Object.create(logging.getLogger('test')), {
  critical: (m: string) => logged.push(m),
  error: (m: string) => logged.push(m),
});
const plugins = masterPillarPlugins(config, logging);
const pillar = new MasterPillar(config as unknown as Record<string, unknown>, new MinionDataCache(join(root, 'cache')), log, plugins);

describe("the master's plugins in pillar", () => {
  it('an ext_pillar npm package from plugin_dirs feeds the pillar; salt[...] runs the master functions', async () => {
    const data = await pillar.compile('web1', { cmd: '_pillar', id: 'web1', grains: {} } as never);
    expect(data).toEqual({ echo: 'from-master', shell: 'async-ok', role: 'web', role_from: 'brine-plugin-roles for web1' });
  });

  it('a function the master lacks is an undefined error in _errors, not a crash', async () => {
    const data = await pillar.compile('broken', { cmd: '_pillar', id: 'broken', grains: {} } as never);
    expect(data.role).toBe('none');
    expect(data._errors).toEqual(["Rendering SLS 'broken' failed. Please see master log for details."]);
    expect(logged.join('\n')).toContain("has no attribute 'nosuch.fun'");
  });
});

describe("the master's plugins in the runners' pillar compiles", () => {
  it('pillar.show_pillar (salt-run, salt-api) compiles with the same ext_pillar packages and salt[...]', async () => {
    const keys = new KeyStore({ pkiDir: join(root, 'pki') });
    const master = { ...config, pki_dir: join(root, 'pki'), plugin_dirs: [] } as unknown as MasterConfig;
    const jobs = { run: async () => null, runAsync: async () => null, async *runBatch() {} };
    const fns = await MasterFunctions.load({ master, keys, jobs, pillarPlugins: plugins });
    const data = await fns.runners.get('pillar.show_pillar')!.call(['web1'], {}, { user: 'root' });
    expect(data).toEqual({ echo: 'from-master', shell: 'async-ok', role: 'web', role_from: 'brine-plugin-roles for web1' });
  });
});
