import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, fakeShell, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await createHarness({ shell: new NodeShell(), grains: { shell: '/bin/sh' } });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'brine-cmd-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cmd module on a real shell', () => {
  it('run: stdout and stderr merged, trailing whitespace stripped, exit code is the job retcode', async () => {
    expect(await h.call('cmd.run', ['echo hi'])).toEqual({ return: 'hi', retcode: 0, success: true });
    expect(await h.call('cmd.run', ['echo out; echo err >&2; exit 3'])).toEqual({ return: 'out\nerr', retcode: 3, success: false });
    expect((await h.call('cmd.run', ['printf "a\\nb\\nc"'])).return).toBe('a\nb\nc');
    expect(await h.call('cmd.run', ['exit 3'])).toEqual({ return: '', retcode: 3, success: false });
  });

  it('run_all, run_stdout, run_stderr, retcode, shell', async () => {
    const all = (await h.call('cmd.run_all', ['echo out; echo err >&2; exit 2'])).return as Record<string, unknown>;
    expect(all).toMatchObject({ retcode: 2, stdout: 'out', stderr: 'err' });
    expect(typeof all.pid).toBe('number');
    expect((await h.call('cmd.run_all', ['echo out; echo err >&2'], { redirect_stderr: true })).return).toMatchObject({
      stdout: 'out\nerr',
      stderr: '',
    });
    expect((await h.call('cmd.run_stdout', ['echo out; echo err >&2'])).return).toBe('out');
    expect((await h.call('cmd.run_stderr', ['echo out; echo err >&2'])).return).toBe('err');
    expect(await h.call('cmd.retcode', ['exit 4'])).toEqual({ return: 4, retcode: 4, success: false });
    expect((await h.call('cmd.shell', ['echo $((2+3))'])).return).toBe('5');
  });

  it('cwd, env, stdin, umask, rstrip, hide_output', async () => {
    expect((await h.call('cmd.run', ['pwd'], { cwd: dir })).return).toBe(dir);
    expect((await h.call('cmd.run', ['echo $FOO'], { env: { FOO: 'bar' } })).return).toBe('bar');
    expect((await h.call('cmd.run', ['cat'], { stdin: 'from stdin' })).return).toBe('from stdin');
    expect((await h.call('cmd.run', ['umask'], { umask: '077' })).return).toBe('0077');
    expect((await h.call('cmd.run', ['printf "x  "'], { rstrip: false })).return).toBe('x  ');
    expect((await h.call('cmd.run', ['echo secret'], { hide_output: true })).return).toBe('');
    expect((await h.call('cmd.run', ['pwd'], { cwd: 'relative' })).return).toBe(
      "ERROR: Specified cwd 'relative' either not absolute or does not exist",
    );
    expect((await h.call('cmd.run', ['true'], { umask: '0' })).return).toBe('ERROR: Zero umask is not allowed.');
  });

  it('ignore_retcode and success_retcodes', async () => {
    expect(await h.call('cmd.run', ['echo x; exit 3'], { ignore_retcode: true })).toEqual({ return: 'x', retcode: 0, success: true });
    expect(await h.call('cmd.run', ['exit 3'], { success_retcodes: [3, 4] })).toMatchObject({ retcode: 0, success: true });
    // Salt's split_input: '3, 4' and a bare 3 are lists too.
    expect(await h.call('cmd.run', ['exit 4'], { success_retcodes: '3, 4' })).toMatchObject({ retcode: 0, success: true });
    expect(await h.call('cmd.run', ['exit 3'], { success_retcodes: 3 })).toMatchObject({ retcode: 0, success: true });
    expect((await h.call('cmd.run', ['exit 3'], { success_retcodes: 'x' })).return).toBe(
      "ERROR executing 'cmd.run': success_retcodes[0] must be an integer, got 'x'",
    );
  });

  it('timeout kills the whole process group and answers as Salt does', async () => {
    const pidFile = join(dir, 'child.pid');
    const started = Date.now();
    const res = await h.call('cmd.run', [`sleep 30 & echo $! > ${pidFile}; wait`], { timeout: 0.5 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res).toEqual({ return: `sleep 30 & echo $! > ${pidFile}; wait : Timed out after 0.5 seconds`, retcode: 1, success: false });
    const { readFileSync } = await import('node:fs');
    const childPid = Number(readFileSync(pidFile, 'utf8').trim());
    // Killed means gone or a zombie waiting for its reaper ('Z' in /proc/<pid>/stat). SIGKILL is
    // sent, but on a busy machine the grandchild may take a moment to be scheduled and die, and
    // Linux tells nobody but its parent: look again for a bounded while (it would live 30 s).
    const dead = () => {
      try {
        return / Z /.test(readFileSync(`/proc/${childPid}/stat`, 'utf8'));
      } catch {
        return true;
      }
    };
    const deadline = Date.now() + 5000;
    while (!dead() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(dead()).toBe(true);
  });

  it('python_shell: true for master jobs, false for cross-calls (argv split like shlex)', async () => {
    expect((await h.call('cmd.run', ['echo a | tr a b'])).return).toBe('b');
    expect((await h.call('cmd.run', ['echo a | tr a b'], { python_shell: false })).return).toBe('a | tr a b');
    expect((await h.call('test.cross_test', ['cmd.run', ['echo "x y" | cat']])).return).toBe('x y | cat');
    expect((await h.call('cmd.run', [['echo', 'list', 'form']])).return).toBe('list form');
  });

  it("cmd_safe: False gives cross-calls the shell too (Salt's override switch)", async () => {
    const unsafe = await createHarness({ shell: new NodeShell(), grains: { shell: '/bin/sh' }, config: { cmd_safe: false } });
    expect((await unsafe.call('test.cross_test', ['cmd.run', ['echo "x y" | cat']])).return).toBe('x y');
    expect((await unsafe.call('test.cross_test', ['cmd.run', ['echo a | tr a b', null, null, null, null, null, false]])).return).toBe(
      'a | tr a b',
    );
  });

  it('which and has_exec', async () => {
    expect((await h.call('cmd.which', ['sh'])).return).toMatch(/\/sh$/);
    expect((await h.call('cmd.which', ['no-such-binary-xyz'])).return).toBeNull();
    expect((await h.call('cmd.has_exec', ['sh'])).return).toBe(true);
    expect((await h.call('cmd.has_exec', ['no-such-binary-xyz'])).return).toBe(false);
  });

  it('runas when not root is a clear error', async () => {
    if (process.getuid?.() === 0) {
      expect((await h.call('cmd.run', ['id -un'], { runas: 'nobody' })).return).toBe('nobody');
    } else {
      expect((await h.call('cmd.run', ['id -un'], { runas: 'root' })).return).toBe("ERROR: runas 'root' needs the minion to run as root");
    }
    expect((await h.call('cmd.run', ['true'], { runas: 'no-such-user-xyz' })).return).toBe(
      "ERROR: User 'no-such-user-xyz' is not available",
    );
  });
});

describe('cmd module against a fake shell', () => {
  it('passes Salt options through to IShell', async () => {
    const shell = fakeShell(() => ({ stdout: 'ok\n', retcode: 0 }));
    const fh = await createHarness({ shell, grains: { shell: '/bin/bash' } });
    expect((await fh.call('cmd.run', ['ls -l'], { cwd: '/tmp', env: { A: 1 }, timeout: 5, prepend_path: '/opt/bin' })).return).toBe('ok');
    const [call] = shell.calls;
    expect(call.command).toBe('ls -l');
    expect(call.options).toMatchObject({ cwd: '/tmp', timeout: 5, pythonShell: true, shell: '/bin/bash', mergeStderr: true });
    expect(call.options.env?.A).toBe('1');
    expect(call.options.env?.PATH?.startsWith('/opt/bin:')).toBe(true);
    expect((await fh.call('cmd.run', [''])).retcode).toBe(1);
    // A user's typo gets Salt's invocation-error answer before anything runs, never an exception.
    expect(await fh.call('cmd.run', ['x'], { timeout: 'soon' })).toEqual({
      return: "ERROR executing 'cmd.run': timeout must be a number, got 'soon'",
      retcode: 1,
      success: false,
      out: 'nested',
    });
    expect((await fh.call('cmd.which_bin', ['sh'])).return).toBe("ERROR executing 'cmd.which_bin': cmds must be a list, got 'sh'");
    expect(shell.calls).toHaveLength(1);
    expect((await fh.call('cmd.run', ['x'], { env: 'A=1' })).return).toBe("ERROR executing 'cmd.run': env must be a dict, got 'A=1'");
  });
});
