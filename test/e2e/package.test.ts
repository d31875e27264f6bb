/**
 * The published package as a user gets it: `npm pack` (of the dist/ that `npm test` builds first),
 * unpacked into node_modules/brine of an empty project, then `require('brine')` and
 * `require('brine/plugin')` from there. Its dependencies resolve from this checkout's node_modules
 * (NODE_PATH), so nothing is downloaded.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve(__dirname, '../..');
const root = mkdtempSync(join(tmpdir(), 'brine-pack-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the packed package', () => {
  it('ships dist/src and dist/plugins (no bench or test code) and require("brine") works from the tarball', () => {
    // --ignore-scripts: dist/ is already built (pretest); prepare would only build it again.
    const out = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', root], { cwd: repo, encoding: 'utf8' });
    const [info] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info.files.map((f) => f.path);
    expect(files).toContain('dist/src/index.js');
    expect(files).toContain('dist/src/plugins/api/index.js');
    expect(files).toContain('bin/salt');
    expect(files.filter((f) => /^dist\/(bench|test|scripts)\//.test(f) || /pg-sandbox|free-port|job-cache-bench/.test(f))).toEqual([]);

    const project = join(root, 'project');
    const pkgDir = join(project, 'node_modules', 'brine');
    mkdirSync(pkgDir, { recursive: true });
    execFileSync('tar', ['-xzf', join(root, info.filename), '-C', pkgDir, '--strip-components=1']);
    expect(readdirSync(pkgDir)).toContain('package.json');
    writeFileSync(
      join(project, 'check.js'),
      [
        "const brine = require('brine');",
        "const plugin = require('brine/plugin');",
        'console.log(JSON.stringify({',
        '  client: typeof brine.LocalClient.connect,',
        '  waiter: typeof brine.JobWaiter,',
        '  config: typeof brine.loadMasterConfig,',
        '  module: typeof brine.Module,',
        '  same: brine.Module === plugin.Module && brine.IShell === plugin.IShell,',
        '}));',
      ].join('\n'),
    );
    const result = execFileSync(process.execPath, ['check.js'], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, NODE_PATH: join(repo, 'node_modules') },
    });
    expect(JSON.parse(result)).toEqual({ client: 'function', waiter: 'function', config: 'function', module: 'function', same: true });
  });
});
