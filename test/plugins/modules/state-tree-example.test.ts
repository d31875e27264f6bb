/**
 * The state tree docs/states.md walks through (examples/state-tree/: a web server's config file
 * from a pillar template, a page, a command without a service run on change), applied as a
 * minion with the grain role: web applies its highstate: dry run with test=True changes nothing,
 * the apply writes the files, the re-apply changes nothing. In process (a harness, real shell);
 * only `www_root` of the example's pillar is moved into a temporary folder.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS, createHarness } from 'brine/testing';
import { renderFile } from '../../../src/core/render';
import { NodeShell } from '../../../src/plugins/services/shell';

const TREE = resolve(__dirname, '../../../examples/state-tree');
const root = mkdtempSync(join(tmpdir(), 'brine-state-tree-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Results = Record<string, { result: boolean | null; changes: Record<string, unknown>; comment: string }>;

describe('the state tree of docs/states.md', () => {
  it('dry run, apply, re-apply with no changes', async () => {
    const grains = { id: 'web1', os: 'Debian', role: 'web', kernel: 'Linux' };
    const pillar = (await renderFile({ path: join(TREE, 'pillar', 'site.sls'), sls: 'site', context: { grains, pillar: {} } })) as Record<
      string,
      unknown
    >;
    pillar.www_root = join(root, 'www');
    const h = await createHarness({
      modules: BUILTIN_PLUGINS,
      grains,
      pillar,
      shell: new NodeShell(),
      config: { id: 'web1', file_client: 'local', file_roots: { base: [join(TREE, 'salt')] } },
    });
    const site = join(root, 'www', 'web1');
    const apply = async (kwargs: Record<string, unknown> = {}) => {
      const res = await h.call('state.apply', [], kwargs);
      return { retcode: res.retcode, ret: Object.values(res.return as Results) };
    };

    const dry = await apply({ test: true });
    expect(dry.retcode).toBe(0);
    expect(dry.ret.map((r) => r.result)).toEqual([null, null, null, null, null]);
    expect(existsSync(join(root, 'www'))).toBe(false);

    const first = await apply();
    expect(first.retcode).toBe(0);
    expect(first.ret.every((r) => r.result === true && Object.keys(r.changes).length > 0)).toBe(true);
    expect(readFileSync(join(site, 'site.conf'), 'utf8')).toBe(
      `# web1: managed by brine, do not edit\nserver {\n    listen 8080;\n    server_name web1.example.com;\n    root ${site}/htdocs;\n}\n`,
    );
    expect(readFileSync(join(site, 'htdocs', 'index.html'), 'utf8')).toBe('<h1>Hello from web1</h1>\n');
    // The service-less command ran because the config file changed.
    expect(first.ret.find((r) => r.comment === 'Command "grep -c listen ' + site + '/site.conf" run')?.changes).toMatchObject({
      stdout: '1',
    });

    const again = await apply();
    expect(again.retcode).toBe(0);
    expect(again.ret.every((r) => r.result === true && Object.keys(r.changes).length === 0)).toBe(true);
    expect(again.ret.map((r) => r.comment)).toContain('State was not run because none of the onchanges reqs changed');
  });
});
