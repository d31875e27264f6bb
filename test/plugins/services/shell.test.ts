/**
 * The shell service as Salt's cmdmod runs commands (issue 13, bug 3): stdin is never a socket (bash
 * reads ~/.bashrc when it is), `runas` gets the user's login environment, a timeout kills.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeShell } from '../../../src/plugins/services/shell';

const shell = new NodeShell();
let home: string;

beforeAll(() => {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'brine-shell-')));
  // A .bashrc that talks: it must never show up in a command's output.
  writeFileSync(join(home, '.bashrc'), 'echo FROM-BASHRC\n');
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('NodeShell', () => {
  it('gives commands /dev/null as stdin, so bash does not read ~/.bashrc', async () => {
    const res = await shell.run('echo hi; readlink /proc/self/fd/0', { pythonShell: true, shell: '/bin/bash', env: { HOME: home } });
    expect(res.stdout).toBe('hi\n/dev/null\n');
    expect(res.stderr).toBe('');
  });

  it('stdin= is read from a file, not a socket, and bash still does not read ~/.bashrc', async () => {
    const res = await shell.run('cat; test -S /dev/stdin && echo socket', {
      pythonShell: true,
      shell: '/bin/bash',
      env: { HOME: home },
      stdin: 'line one\nline two',
    });
    expect(res.stdout).toBe('line one\nline two');
    expect(res.retcode).toBe(1);
  });

  it.runIf(process.getuid?.() === 0)('runas gets the login environment of the user, as Salt builds it', async () => {
    const res = await shell.run('echo HOME=$HOME USER=$USER LOGNAME=$LOGNAME; id -un', {
      pythonShell: true,
      shell: '/bin/bash',
      runas: 'nobody',
      env: { EXTRA: 'kept' },
    });
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe('HOME=/nonexistent USER=nobody LOGNAME=nobody\nnobody\n');
    const extra = await shell.run('echo $EXTRA', { pythonShell: true, shell: '/bin/bash', runas: 'nobody', env: { EXTRA: 'kept' } });
    expect(extra.stdout).toBe('kept\n');
  });

  it('a timeout kills the command and says so', async () => {
    const started = Date.now();
    const res = await shell.run('sleep 10', { pythonShell: true, shell: '/bin/sh', timeout: 0.5 });
    expect(res.timedOut).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
