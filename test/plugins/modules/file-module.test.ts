import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHarness, type Harness } from 'brine/testing';
import { NodeShell } from '../../../src/plugins/services/shell';
import { fixture } from '../fixtures';

/**
 * The file module against a real Salt 3007.10: `file-calls.json` is a sequence of calls on one
 * directory, `file-returns.json` what Salt's loader returned for each (produced by running the
 * same sequence through salt.loader.minion_mods on this host, `{dir}` standing for the directory).
 * Salt's exceptions map to brine's answers as the minion prints them.
 */
type Call = [label: string, fun: string, args: unknown[], kwargs: Record<string, unknown>];
const calls = JSON.parse(readFileSync(fixture('salt-returns/file-calls.json'), 'utf8')) as Call[];
const salt = JSON.parse(readFileSync(fixture('salt-returns/file-returns.json'), 'utf8')) as Record<
  string,
  { ret?: unknown; err?: string; msg?: string }
>;

let h: Harness;
let dir: string;

beforeAll(async () => {
  h = await createHarness({ shell: new NodeShell() });
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'brine-file-')));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fill = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll('{dir}', dir));

describe('file module, call by call as Salt 3007.10', () => {
  it('returns what Salt returns, in sequence, on the same directory', async () => {
    const mismatches: unknown[] = [];
    for (const [label, fun, args, kwargs] of calls) {
      const res = await h.call(fun, fill(args) as unknown[], fill(kwargs) as Record<string, unknown>);
      const want = fill(salt[label]) as { ret?: unknown; err?: string; msg?: string };
      let expected: unknown;
      if (want.err === 'CommandExecutionError') expected = `ERROR: ${want.msg}`;
      else if (want.err === 'SaltInvocationError') expected = `ERROR executing '${fun}': ${want.msg}`;
      // Salt crashes with a TypeError here (chown of a missing path to unknown names); brine answers.
      else if (want.err) continue;
      else expected = want.ret;
      let got = res.return;
      if (fun === 'file.sed') got = { ...(got as object), pid: (expected as { pid: number }).pid };
      if (JSON.stringify(got) !== JSON.stringify(expected)) mismatches.push({ label, got, expected });
    }
    expect(mismatches).toEqual([]);
  });

  it('chown of a missing path to unknown names says why, as Salt means to', async () => {
    expect((await h.call('file.chown', [join(dir, 'none'), 'nosuchuser', 'nosuchgroup'])).return).toBe(
      'User does not exist\nGroup does not exist\nFile not found',
    );
  });

  it('stats: type, mode and owner of a directory, target of a link', async () => {
    const st = (await h.call('file.stats', [dir])).return as Record<string, unknown>;
    expect(st).toMatchObject({ type: 'dir', user: 'root', uid: 0, target: dir });
    expect(typeof st.mtime).toBe('number');
  });
});
