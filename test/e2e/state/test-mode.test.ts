/**
 * test=True changes nothing: a tree snapshot (listing, modes, contents) before and after a dry
 * run of states that would create, change, remove and link files and run commands is the same;
 * the same states then applied for real do change it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { workListing } from '../../support/state-corpus';

const root = mkdtempSync(join(tmpdir(), 'brine-testmode-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function saltCall(...args: string[]): { stdout: string; code: number } {
  const r = spawnSync(process.execPath, [resolve(__dirname, '../../../bin/salt-call'), '-c', join(root, 'conf'), '--local', ...args], {
    encoding: 'utf8',
  });
  return { stdout: r.stdout, code: r.status ?? -1 };
}

describe('state.apply test=True', () => {
  const work = join(root, 'work');
  mkdirSync(join(root, 'conf'), { recursive: true });
  mkdirSync(join(root, 'states'), { recursive: true });
  mkdirSync(work);
  writeFileSync(
    join(root, 'conf/minion'),
    `root_dir: ${root}/root\nfile_client: local\nfile_roots:\n  base:\n    - ${root}/states\nid: dry\n`,
  );
  writeFileSync(join(work, 'existing.txt'), 'old\n');
  writeFileSync(join(work, 'gone.txt'), 'bye\n');
  writeFileSync(
    join(root, 'states/dry.sls'),
    [
      `${work}/new.txt:\n  file.managed:\n    - contents: hello`,
      `${work}/existing.txt:\n  file.managed:\n    - contents: new\n    - mode: '0600'`,
      `${work}/dir/sub:\n  file.directory:\n    - makedirs: True`,
      `${work}/gone.txt:\n  file.absent`,
      `${work}/link:\n  file.symlink:\n    - target: ${work}/existing.txt`,
      `touch-it:\n  cmd.run:\n    - name: touch ${work}/touched`,
    ].join('\n\n') + '\n',
  );

  it('leaves the tree exactly as it was, and reports what would change', () => {
    const before = workListing(work);
    const dry = saltCall('state.apply', 'dry', 'test=True', '--out', 'json');
    expect(dry.code).toBe(0);
    expect(workListing(work)).toBe(before);
    const ret = JSON.parse(dry.stdout).local as Record<string, { result: unknown }>;
    expect(Object.values(ret).map((r) => r.result)).toEqual([null, null, null, null, null, null]);
  });

  it('changes the tree when applied for real', () => {
    const before = workListing(work);
    expect(saltCall('state.apply', 'dry', '--out', 'json').code).toBe(0);
    expect(workListing(work)).not.toBe(before);
    expect(workListing(work)).toContain('=== ./new.txt\nhello\n');
  });
});
