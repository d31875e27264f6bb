/**
 * What a short command loads, from the built tree: `salt-call --local` with a plain (block YAML)
 * config reads its command line without oclif, its config and words without the `yaml` package,
 * and loads only the built-in modules it uses, and not the master's job cache. Each of these was a measured part of its start-up
 * CPU (README, "Performance"); this keeps a static import from bringing them back unnoticed.
 * And the `salt` CLI runs a job without libzmq, node:crypto or node:child_process (the daemons'
 * -d), each a measured part of its peak memory (docs/scaling.md).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binArgv, Cluster } from '../support/cluster';

const REPO = join(__dirname, '..', '..');
const root = mkdtempSync(join(tmpdir(), 'brine-startup-modules-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What `bin/<bin> ...args` loaded: the files (relative to the repository) and Node's own modules. */
function loadedBy(args: string[], bin = 'salt-call'): { stdout: string; modules: string[]; builtins: string[] } {
  const list = join(root, 'modules.json');
  const hook = join(root, 'hook.js');
  writeFileSync(
    hook,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, JSON.stringify([Object.keys(require.cache), process.moduleLoadList])));\n`,
  );
  // As a user runs it: with the node flags of its `exec node` line.
  const res = spawnSync(process.execPath, ['--require', hook, ...binArgv(bin), ...args], {
    encoding: 'utf8',
    env: { ...process.env, BRINE_COMPILE_CACHE: join(root, 'cache') },
  });
  expect(res.status, res.stderr).toBe(0);
  const [files, builtins] = JSON.parse(readFileSync(list, 'utf8')) as [string[], string[]];
  return { stdout: res.stdout, modules: files.map((m) => m.slice(REPO.length + 1)), builtins };
}

describe('what salt-call --local loads', () => {
  mkdirSync(join(root, 'conf'));
  mkdirSync(join(root, 'states'));
  writeFileSync(
    join(root, 'conf', 'minion'),
    `root_dir: ${root}/root\nfile_client: local\nfile_roots:\n  base:\n    - ${root}/states\nid: probe\n`,
  );
  writeFileSync(join(root, 'states', 'probe.sls'), 'hello:\n  test.succeed_without_changes:\n    - name: hi\n');

  it('test.echo: no oclif, no yaml package, no job cache, only the test module of the built-ins', () => {
    const { stdout, modules } = loadedBy(['-c', join(root, 'conf'), '--local', 'test.echo', 'hello']);
    expect(stdout).toBe('local:\n    hello\n');
    // The returners' stores load the job cache's code when first used (a minion's never are).
    expect(modules.filter((m) => m.includes('/job-cache/') || m.includes('node_modules/pg'))).toEqual([]);
    expect(modules.filter((m) => m.includes('node_modules/@oclif/'))).toEqual([]);
    expect(modules.filter((m) => m.includes('node_modules/yaml/'))).toEqual([]);
    const plugins = modules.filter((m) => m.startsWith('dist/plugins/') && !m.startsWith('dist/plugins/grains/'));
    expect(plugins).toEqual(['dist/plugins/manifest.js', 'dist/plugins/test/test.module.js']);
  });

  it('state.apply of a plain SLS: still no yaml package; the state modules it runs are loaded', () => {
    const { stdout, modules } = loadedBy(['-c', join(root, 'conf'), '--local', 'state.apply', 'probe', '--out', 'json']);
    expect(JSON.parse(stdout).local['test_|-hello_|-hi_|-succeed_without_changes'].result).toBe(true);
    expect(modules.filter((m) => m.includes('node_modules/yaml/'))).toEqual([]);
    expect(modules).toContain('dist/plugins/test/test.state.js');
    expect(modules).not.toContain('dist/plugins/pkg/pkg.module.js');
  });
});

describe('what the salt CLI loads for a job', () => {
  it("salt '*' test.ping: no libzmq (its request goes through the ZMTP client), no node:crypto, no node:child_process", async () => {
    const cluster = await Cluster.create();
    try {
      await cluster.startMaster();
      await cluster.startAccepted([{ id: 'm1' }]);
      const { stdout, modules, builtins } = loadedBy(['-c', cluster.masterDir, '*', 'test.ping'], 'salt');
      expect(stdout).toBe('m1:\n    True\n');
      expect(modules).toContain('dist/src/core/transport/zmtp-request.js');
      expect(modules.filter((m) => m.includes('node_modules/zeromq/') || m.endsWith('transport/zeromq.js'))).toEqual([]);
      expect(builtins.filter((m) => /\bcrypto\b/.test(m))).toEqual([]);
      expect(builtins.filter((m) => /\bchild_process\b/.test(m))).toEqual([]);
      // Its V8 flags come from its `exec node` line: node:v8 is not needed to set them.
      expect(builtins.filter((m) => /^NativeModule v8$/.test(m))).toEqual([]);
      expect(modules).not.toContain('dist/src/cli/daemon.js');
      // pycompat's index pulls in every Python look-alike (regex, YAML emitter, repr...); the CLI imports the ones it uses.
      expect(modules).not.toContain('dist/src/core/pycompat/index.js');
    } finally {
      await cluster.stop();
    }
  });
});

/** Whether a process has zeromq's native addon (and so libzmq) mapped. */
const hasLibzmq = (pid: number) => /zeromq.*addon\.node/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
/** A process's children, by process id (Linux's /proc/<pid>/task/<tid>/children). */
const childrenOf = (pid: number) =>
  readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
    readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );

describe('what the daemons load', () => {
  it('zmq_ports: node (the default): no libzmq in the master, its publish process or a minion; libzmq only where a minion names it', async () => {
    const cluster = await Cluster.create();
    try {
      const master = await cluster.startMaster();
      await cluster.startAccepted([{ id: 'plain' }, { id: 'libzmq', config: { zmq_ports: 'libzmq' } }]);
      // Both kinds of minion take a job through the master's Node ports and answer it.
      const ping = await cluster.salt('*', 'test.ping', '--out', 'json', '--static');
      expect(JSON.parse(ping.stdout)).toEqual({ plain: true, libzmq: true });
      const masterPid = master.child.pid!;
      const publisher = childrenOf(masterPid);
      expect(publisher).toHaveLength(1);
      expect([masterPid, ...publisher].map(hasLibzmq)).toEqual([false, false]);
      expect(hasLibzmq(cluster.minions.get('plain')!.child.pid!)).toBe(false);
      expect(hasLibzmq(cluster.minions.get('libzmq')!.child.pid!)).toBe(true);
    } finally {
      await cluster.stop();
    }
  });
});
