/**
 * The node flags bin/* start node with, which a user's `salt` runs with (a link to bin/salt).
 * The short commands and salt-minion are `#!/bin/sh` scripts that are JavaScript too: sh runs their
 * `exec node FLAGS "$0" "$@"` line (`#!/usr/bin/env -S` would fail where env has no -S: BusyBox,
 * the BSDs), and node reads that line as a string and a comment. They start with
 * - `--no-turbofan --no-sparkplug`: without V8's compilers to machine code, which they turn on
 *   later (src/cli/compile-cache.ts); given on the command line, node:v8 is not loaded to set
 *   them (src/cli/v8-flags.ts), 0.3 MiB of the `salt` CLI's peak RSS;
 * - `--no-short-builtin-calls`: V8 then leaves its builtins where they are in the node binary
 *   instead of mapping them a second time next to JIT code, 0.6 MiB of the CLI's peak and 0.7 MiB
 *   of an idle minion (docs/scaling.md). That copy speeds calls from optimised code, which these
 *   processes run little of; the master and salt-api keep it. V8 itself skips the copy on
 *   machines under 4 GiB.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { binArgv, REPO } from '../support/cluster';

const root = mkdtempSync(join(tmpdir(), 'brine-bin-flags-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const LEAN = ['salt', 'salt-call', 'salt-cp', 'salt-key', 'salt-run', 'salt-minion'];
const FAST = ['salt-master', 'salt-api'];
const LEAN_FLAGS = ['--no-short-builtin-calls', '--no-turbofan', '--no-sparkplug'];

describe("bin/*'s node flags", () => {
  it.each(LEAN)('%s starts without short builtin calls, TurboFan and Sparkplug', (bin) => {
    expect(binArgv(bin)).toEqual([...LEAN_FLAGS, join(REPO, 'bin', bin)]);
  });

  it.each(FAST)('%s keeps V8 defaults', (bin) => {
    expect(binArgv(bin)).toEqual([join(REPO, 'bin', bin)]);
  });

  /** bin/<bin> run as a program (its `#!` line), with node first in PATH: its stdout, and node's execArgv. */
  function runDirectly(bin: string, args: string[]): { stdout: string; execArgv: string[] } {
    const out = join(root, 'exec-argv.json');
    const hook = join(root, 'hook.js');
    writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.execArgv)));\n`,
    );
    const res = spawnSync(join(REPO, 'bin', bin), args, {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        NODE_OPTIONS: `--require ${hook}`,
        BRINE_COMPILE_CACHE: '0',
      },
    });
    expect(res.status, res.stderr).toBe(0);
    return { stdout: res.stdout, execArgv: JSON.parse(readFileSync(out, 'utf8')) as string[] };
  }

  it('run directly, as a user runs it, node gets the flags through sh', () => {
    const { stdout, execArgv } = runDirectly('salt', ['--version']);
    expect(stdout).toMatch(/^salt \d/);
    expect(execArgv).toEqual(LEAN_FLAGS);
  });

  it("passes the command's words to node unchanged (spaces, quotes, $, a leading dash)", () => {
    const conf = join(root, 'conf');
    mkdirSync(conf, { recursive: true });
    writeFileSync(join(conf, 'minion'), `root_dir: ${join(root, 'saltroot')}\nfile_client: local\nid: probe\n`);
    const word = `two  words 'q' "dq" $HOME \\ -x`;
    const { stdout, execArgv } = runDirectly('salt-call', ['-c', conf, '--local', 'test.echo', word, '--out', 'json']);
    expect(JSON.parse(stdout)).toEqual({ local: word });
    expect(execArgv).toEqual(LEAN_FLAGS);
  });
});
