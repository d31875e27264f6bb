import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeHost } from '../../../src/plugins/services/host';
import { NodeShell } from '../../../src/plugins/services/shell';
import type { MasterFiles } from '../../../src/plugins/services/extension-sync';

let h: Harness;
let dir: string;
const master: MasterFiles = {
  async list() {
    return ['scripts/hello.sh'];
  },
  async fetch(saltenv, path, dest) {
    if (saltenv !== 'base' || path !== 'scripts/hello.sh') return false;
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, '#!/bin/sh\necho "from master: $1 $2"\necho oops >&2\nexit 4\n');
    return true;
  },
};

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'brine-script-')));
  h = await createHarness({
    shell: new NodeShell(),
    host: new NodeHost('/'),
    grains: { shell: '/bin/sh' },
    config: { cachedir: join(dir, 'cache') },
    files: master,
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cmd.script and friends', () => {
  it('runs a local script with args and returns run_all data', async () => {
    const script = join(dir, 'local.sh');
    writeFileSync(script, '#!/bin/sh\necho "args: $#: $1"\n');
    const res = await h.call('cmd.script', [script, "'one two' three"]);
    expect(res.return).toMatchObject({ retcode: 0, stdout: 'args: 2: one two', stderr: '' });
    expect(res.retcode).toBe(0);
  });

  it('fetches salt:// scripts from the master; the exit code is the retcode', async () => {
    const res = await h.call('cmd.script', ['salt://scripts/hello.sh', 'a b']);
    expect(res.return).toMatchObject({ retcode: 4, stdout: 'from master: a b', stderr: 'oops' });
    expect(res.retcode).toBe(4);
    expect(existsSync(join(dir, 'cache', 'files', 'base', 'scripts', 'hello.sh'))).toBe(true);
    expect(await h.call('cmd.script_retcode', ['salt://scripts/hello.sh'])).toMatchObject({ return: 4, retcode: 4 });
  });

  it("answers Salt's cache_error for a missing script", async () => {
    expect((await h.call('cmd.script', ['salt://scripts/nope.sh'])).return).toEqual({
      pid: 0,
      retcode: 1,
      stdout: '',
      stderr: '',
      cache_error: true,
    });
    expect((await h.call('cmd.script', [join(dir, 'nope.sh')])).return).toMatchObject({ cache_error: true });
  });

  it('run_bg returns a pid without waiting', async () => {
    const marker = join(dir, 'bg-done');
    const res = await h.call('cmd.run_bg', [`sleep 0.2; echo done > ${marker}`]);
    expect((res.return as { pid: number }).pid).toBeGreaterThan(0);
    expect(existsSync(marker)).toBe(false);
    await expect.poll(() => existsSync(marker) && readFileSync(marker, 'utf8'), { timeout: 5000 }).toBe('done\n');
  });

  it('shells reads /etc/shells, which_bin finds the first executable', async () => {
    const root = join(dir, 'root');
    mkdirSync(join(root, 'etc'), { recursive: true });
    writeFileSync(join(root, 'etc', 'shells'), '# /etc/shells: valid login shells\n/bin/sh\n\n/bin/bash\n');
    const local = await createHarness({ host: new NodeHost(root), shell: fakeShell(() => ({}), { pip: '/usr/bin/pip' }) });
    expect((await local.call('cmd.shells')).return).toEqual(['/bin/sh', '/bin/bash']);
    expect((await local.call('cmd.which_bin', [['pip2', 'pip']])).return).toBe('/usr/bin/pip');
    expect((await local.call('cmd.which_bin', [['nope']])).return).toBe(null);
    expect((await local.call('cmd.which_bin', ['pip'])).retcode).toBe(1);
  });

  it('passes the group option to the shell, and refuses a group the minion cannot take', async () => {
    const shell = fakeShell(() => ({ stdout: 'ok' }));
    const fake = await createHarness({ shell });
    await fake.call('cmd.run', ['id'], { group: 'adm' });
    expect(shell.calls[0].options.group).toBe('adm');
    if (process.getuid?.() !== 0) {
      const res = await h.call('cmd.run', ['id -g'], { group: '0' });
      expect(res.return).toBe("ERROR: group '0' needs the minion to run as root");
    } else {
      expect((await h.call('cmd.run', ['id -g'], { group: '0' })).return).toBe('0');
    }
    expect((await h.call('cmd.run', ['id'], { group: 'no-such-group-xyz' })).return).toBe(
      "ERROR: Group 'no-such-group-xyz' is not available",
    );
  });
});
