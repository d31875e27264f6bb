/**
 * Plugins through brine's real binaries: an npm plugin package (the example, and one made by the
 * new-plugin scaffold) built with tsc and installed in a plugin_dirs folder; modules and grains
 * synced from the master's file_roots; a broken and an unavailable module in module_dirs;
 * cmd.script with salt://; grains refreshed from the minion's grains file. `npm run build` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import { Cluster, REPO, type Daemon } from '../support/cluster';
import { buildPackage, installPackage, runProgram } from './plugin-packages';

const FIXTURES = resolve(__dirname, 'fixtures', 'plugins');
const EXAMPLE = join(REPO, 'examples', 'brine-plugin-hello');

let cluster: Cluster;
let work: string;
let prefix: string;
let scaffold: { code: number; stdout: string; stderr: string };
let web1: Daemon;

/** One JSON return per minion: `salt ... --out json --static`. */
async function saltJson(...args: string[]): Promise<Record<string, unknown>> {
  const res = await cluster.salt(...args, '--out', 'json', '--static');
  try {
    return JSON.parse(res.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`salt ${args.join(' ')} printed no JSON (exit ${res.code}):\n${res.stdout}${res.stderr}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'brine-e2e-plugins-'));
  prefix = join(work, 'plugin-prefix');
  // The scaffold, run as a user would from their own folder (npm runs the script in brine's).
  scaffold = await runProgram('npm', ['--prefix', REPO, 'run', '--silent', 'new-plugin', '--', 'disk_tools'], work);
  if (scaffold.code !== 0) throw new Error(`new-plugin failed: ${scaffold.stderr}`);
  const built = await Promise.all([
    buildPackage(EXAMPLE, join(work, 'build')),
    buildPackage(join(work, 'brine-plugin-disk-tools'), join(work, 'build')),
  ]);
  for (const dir of built) installPackage(dir, prefix);

  cluster = await Cluster.create({ file_roots: { base: [join(FIXTURES, 'file_roots')] } });
  await cluster.startMaster();
  await cluster.startAccepted([
    { id: 'web1', grains: { role: 'web' }, config: { plugin_dirs: [prefix], module_dirs: [join(FIXTURES, 'module_dirs')] } },
    { id: 'web2', grains: { role: 'web' }, config: { plugin_dirs: [prefix] } },
  ]);
  web1 = cluster.minions.get('web1')!;
}, 90_000);

afterAll(async () => {
  await cluster?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('plugin packages', () => {
  it('runs the example package installed in a plugin_dirs folder through master and minion', async () => {
    expect(await cluster.salt('web1', 'hello.world')).toMatchObject({ code: 0, stdout: 'web1:\n    hello world from web1\n' });
    expect(await saltJson('*', 'hello.greet', 'bob', 'punctuation=?')).toEqual({ web1: 'hello bob?', web2: 'hello bob?' });
    const bad = await cluster.salt('web2', 'hello.greet', '');
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("web2:\n    ERROR executing 'hello.greet': name must not be empty\n");
  });

  it('salt-call --local runs the package on the minion without the master', async () => {
    const res = await cluster.run('salt-call', ['--local', 'hello.greet', 'ann'], cluster.minionDir('web2'));
    expect(res).toMatchObject({ code: 0, stdout: 'local:\n    hello ann!\n' });
  });

  it('npm run new-plugin scaffolds a package that builds with tsc and loads on the minion', async () => {
    expect(scaffold.stdout).toContain(`Created ${join(work, 'brine-plugin-disk-tools')}`);
    expect(await saltJson('web2', 'disk_tools.echo', 'hi there')).toEqual({ web2: 'hi there' });
    expect(await saltJson('web2', 'disk_tools.kernel')).toEqual({ web2: 'Linux' });
    const mods = (await saltJson('web2', 'sys.list_modules')).web2 as string[];
    expect(mods).toEqual(expect.arrayContaining(['disk_tools', 'hello', 'test', 'cmd']));
  });
});

describe('module_dirs with a broken and an unavailable module', () => {
  it('logs both at start and keeps the other modules working', async () => {
    await web1.waitFor(/broken\.js failed to load: broken\.js exploded while loading/);
    await web1.waitFor("Module 'winonly' is unavailable: __virtual__ returned False: winonly needs Windows");
    expect(await saltJson('web1', 'local_tools.add', '2', '3')).toEqual({ web1: 5 });
    const mods = (await saltJson('web1', 'sys.list_modules')).web1 as string[];
    expect(mods).toContain('local_tools');
    expect(mods).toContain('hello');
    expect(mods).not.toContain('winonly');
  });

  it("answers a call of the unavailable module with Salt's __virtual__ line", async () => {
    const res = await cluster.salt('web1', 'winonly.run');
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("'winonly' __virtual__ returned False: winonly needs Windows");
  });

  it('sys.missing_modules explains both', async () => {
    const missing = (await saltJson('web1', 'sys.missing_modules')).web1 as Record<string, string>;
    expect(missing.winonly).toBe("'winonly' __virtual__ returned False: winonly needs Windows");
    expect(missing.broken).toMatch(/^failed to load from \/.*\/module_dirs\/broken\.js: broken\.js exploded while loading$/);
  });
});

describe('extensions from the master', () => {
  it('saltutil.sync_modules brings _modules (TypeScript and JavaScript) to every minion, listed as Salt lists them', async () => {
    expect(await cluster.salt('web1', 'greeter.hi', 'bob')).toMatchObject({
      code: 1,
      stdout: expect.stringContaining("'greeter.hi' is not available."),
    });
    expect(await saltJson('*', 'saltutil.sync_modules')).toEqual({
      web1: ['modules.greeter', 'modules.shouter'],
      web2: ['modules.greeter', 'modules.shouter'],
    });
    expect(await saltJson('*', 'greeter.hi', 'bob')).toEqual({ web1: 'hi bob from web1', web2: 'hi bob from web2' });
    expect(await saltJson('web2', 'shouter.shout', 'hey')).toEqual({ web2: 'HEY!' });
    // Nothing changed on the master: nothing to list the second time.
    expect(await saltJson('web2', 'saltutil.sync_modules')).toEqual({ web2: [] });
    // The modules that were already there survived the reload.
    expect(await saltJson('web1', 'hello.world')).toEqual({ web1: 'hello world from web1' });
  });

  it('saltutil.sync_grains brings a grains provider whose grain salt -G then targets', async () => {
    expect(await cluster.salt('-G', 'site:dc-east', 'test.ping')).toMatchObject({ code: 2 });
    expect(await saltJson('*', 'saltutil.sync_grains')).toEqual({ web1: ['grains.site'], web2: ['grains.site'] });
    expect(await saltJson('-G', 'site:dc-east', 'test.ping')).toEqual({ web1: true, web2: true });
    expect(await saltJson('web1', 'grains.get', 'site')).toEqual({ web1: 'dc-east' });
  });

  it("cmd.script runs salt://script.sh from the master's file_roots", async () => {
    const ret = (await saltJson('web1', 'cmd.script', 'salt://script.sh', 'one two')).web1 as Record<string, unknown>;
    expect(ret).toMatchObject({ retcode: 0, stdout: 'script args: one two', stderr: 'to stderr' });
    expect(typeof ret.pid).toBe('number');
    const missing = (await saltJson('web1', 'cmd.script', 'salt://nosuch.sh')).web1;
    expect(missing).toMatchObject({ retcode: 1, cache_error: true });
  });
});

describe('grains file', () => {
  it('saltutil.refresh_grains reads a changed grains file and salt -G reaches the minion', async () => {
    expect(await cluster.salt('-G', 'newgrain:value', 'test.ping')).toMatchObject({ code: 2 });
    writeFileSync(join(cluster.minionDir('web1'), 'grains'), stringify({ newgrain: 'value' }));
    expect(await saltJson('web1', 'saltutil.refresh_grains')).toEqual({ web1: true });
    expect(await saltJson('-G', 'newgrain:value', 'test.ping')).toEqual({ web1: true });
    // The synced grains provider still runs after the refresh.
    expect(await saltJson('-G', 'site:dc-east', 'test.ping')).toEqual({ web1: true, web2: true });
  });
});
