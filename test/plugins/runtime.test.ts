import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryGrains } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../plugins';
import { fileList, serveFile } from '../../src/core/master/file-server';
import { FileClient } from '../../src/core/minion/file-client';
import { decode, encode } from '../../src/core/protocol/msgpack';
import { PluginRuntime } from '../../src/plugins/runtime';
import { StaticConfig } from '../../src/plugins/services/config';
import { StreamLogger } from '../../src/plugins/services/logger';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('PluginRuntime with the real file server and client', () => {
  it('saltutil.sync_modules fetches a TypeScript module over _file_list/_serve_file and loads it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-runtime-'));
    dirs.push(root);
    mkdirSync(join(root, 'srv', '_modules'), { recursive: true });
    writeFileSync(
      join(root, 'srv', '_modules', 'ping2.ts'),
      "import { Module, Fn } from 'brine/plugin';\n@Module('ping2')\nexport class Ping2 {\n  @Fn() pong(): string { return 'pong'.repeat(3); }\n}\n",
    );
    const master = { file_roots: { base: [join(root, 'srv')] }, file_buffer_size: 16 };
    // Both ways through msgpack, as the minion's request channel carries the loads.
    const client = new FileClient(async (load) => {
      const wire = decode(encode(load)) as Record<string, unknown>;
      return decode(encode(wire.cmd === '_file_list' ? fileList(master, wire) : serveFile(master, wire)));
    });
    const runtime = await PluginRuntime.start({
      config: new StaticConfig({ id: 'm1', cachedir: join(root, 'cache') }),
      grains: new MemoryGrains({ kernel: 'Linux' }),
      logger: new StreamLogger('error', () => undefined),
      builtins: BUILTIN_PLUGINS,
      files: client,
    });
    const job = (fun: string, jid: string) => runtime.run({ fun, arg: [], jid });
    expect((await job('ping2.pong', '20240101000000000001')).return).toBe("'ping2.pong' is not available.");
    expect((await job('saltutil.sync_modules', '20240101000000000002')).return).toEqual(['modules.ping2']);
    expect((await job('ping2.pong', '20240101000000000003')).return).toBe('pongpongpong');
    expect((await runtime.run({ fun: 'test.provider', arg: ['ping2'], jid: '20240101000000000004' })).return).toBe('ping2');
    expect(runtime.runningJobs()).toEqual([]);
  });
});

describe('PluginRuntime with plugin packages', () => {
  function writePackage(nodeModules: string, name: string, answer: string): void {
    const dir = join(nodeModules, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, brine: { entry: 'index.js' } }));
    writeFileSync(
      join(dir, 'index.js'),
      `const { Module, Fn } = require('brine/plugin');\nclass Pkg { answer() { return ${JSON.stringify(answer)}; } }\nFn()(Pkg.prototype, 'answer');\nModule('pkgx')(Pkg);\nmodule.exports = { Pkg };\n`,
    );
  }

  it('loads a package installed or upgraded while it runs on saltutil.refresh_modules, and logs what failed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-runtime-npm-'));
    dirs.push(root);
    const nodeModules = join(root, 'node_modules');
    mkdirSync(nodeModules);
    // brine beside the packages, as npm installs a peer dependency
    symlinkSync(resolve(__dirname, '../..'), join(nodeModules, 'brine'), 'dir');
    const lines: string[] = [];
    const runtime = await PluginRuntime.start({
      config: new StaticConfig({ id: 'm1' }),
      grains: new MemoryGrains({ kernel: 'Linux' }),
      logger: new StreamLogger('info', (line) => lines.push(line)),
      builtins: BUILTIN_PLUGINS,
      npm: { nodeModules: [nodeModules] },
    });
    const call = async (fun: string, jid: string) => (await runtime.run({ fun, arg: [], jid })).return;
    expect(await call('pkgx.answer', '20240101000000000001')).toBe("'pkgx.answer' is not available.");
    writePackage(nodeModules, 'brine-plugin-pkg', 'one');
    mkdirSync(join(nodeModules, 'brine-plugin-noentry'));
    writeFileSync(join(nodeModules, 'brine-plugin-noentry', 'package.json'), JSON.stringify({ name: 'brine-plugin-noentry' }));
    expect(await call('saltutil.refresh_modules', '20240101000000000002')).toBe(true);
    expect(await call('pkgx.answer', '20240101000000000003')).toBe('one');
    expect(lines).toContain("[WARNING] npm:brine-plugin-noentry failed to load: package 'brine-plugin-noentry' names no plugin entry");
    writePackage(nodeModules, 'brine-plugin-pkg', 'two');
    await runtime.reloadModules();
    expect(await call('pkgx.answer', '20240101000000000004')).toBe('two');
  });
});

describe('PluginRuntime grains change event', () => {
  it('fires when any module changes grains (a third-party module here), on refresh and on reload', async () => {
    const root = mkdtempSync(join(tmpdir(), 'brine-runtime-grains-'));
    dirs.push(root);
    const modules = join(root, 'modules');
    mkdirSync(modules);
    writeFileSync(
      join(modules, 'role.ts'),
      "import { Module, Fn, inject, IGrains } from 'brine/plugin';\n" +
        "@Module('role')\nexport class Role {\n  constructor(@inject(IGrains) private readonly grains: IGrains) {}\n" +
        "  @Fn() async set(): Promise<boolean> { await this.grains.setStatic({ role: 'db' }); return true; }\n" +
        '  @Fn() peek(): boolean { return true; }\n}\n',
    );
    const runtime = await PluginRuntime.start({
      config: new StaticConfig({ id: 'm1', config_dir: root, module_dirs: [modules] }),
      logger: new StreamLogger('error', () => undefined),
      builtins: BUILTIN_PLUGINS,
    });
    let changes = 0;
    runtime.onGrainsChange(() => changes++);
    expect((await runtime.run({ fun: 'role.peek', arg: [], jid: '20240101000000000001' })).return).toBe(true);
    expect(changes).toBe(0);
    expect((await runtime.run({ fun: 'role.set', arg: [], jid: '20240101000000000002' })).return).toBe(true);
    expect(changes).toBe(1);
    expect(runtime.grains().role).toBe('db');
    await runtime.refreshGrains();
    expect(changes).toBe(2);
    await runtime.reloadModules();
    expect(changes).toBe(3);
    // After a reload the event follows the new grains store.
    await runtime.run({ fun: 'role.set', arg: [], jid: '20240101000000000003' });
    expect(changes).toBe(4);
  });
});
