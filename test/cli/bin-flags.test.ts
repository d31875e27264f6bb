/**
 * The node flags in bin/*'s `#!` lines, which a user's `salt` runs with (a link to bin/salt).
 * The short commands and salt-minion start with
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
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

  it('run directly, as a user runs it, node gets the flags from the #! line (env -S)', () => {
    const out = join(root, 'exec-argv.json');
    const hook = join(root, 'hook.js');
    writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.execArgv)));\n`,
    );
    const res = spawnSync(join(REPO, 'bin', 'salt'), ['--version'], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
        NODE_OPTIONS: `--require ${hook}`,
        BRINE_COMPILE_CACHE: '0',
      },
    });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^salt \d/);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(LEAN_FLAGS);
  });
});
