/**
 * The `state` functions and minion options against a real Salt 3007.10 (fixtures/state-functions:
 * the same tree applied by Salt's `salt-call --local`): state.sls_id (with its requisites),
 * state.test, exclude= (by ID and by SLS), pillar= over the minion's pillar, saltenv=, the
 * minion options state_top, state_auto_order: False and test: True, and the requisites the corpus
 * does not hold (onfail and its _any/_all/_in forms, require_any, watch_any, onchanges_any,
 * watch_in, by name, by glob, by id:). In process (a harness).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHarness } from 'brine/testing';
import { normalise } from '../../support/state-corpus';
import { formatHighstate, highstateOptionsOf } from '../../../src/cli/output/highstate';
import { NodeShell } from '../../../src/plugins/services/shell';

const DIR = join(__dirname, '../../core/state/fixtures/state-functions');
const CONF = {
  file_client: 'local',
  file_roots: { base: [join(DIR, 'states')], dev: [join(DIR, 'states', 'dev')] },
  pillar_roots: { base: [join(DIR, 'pillar')] },
  id: 'vec1',
};
const CONF2 = { ...CONF, state_top: 'mytop.sls', state_auto_order: false, test: true };
const PILLAR = { who: 'pillarfile' };

/** Salt lists failed requisites from a Python set (its order varies with the hash seed): sorted here on both sides. */
function sortFailed(text: string): string {
  return text.replace(
    /(One or more requisite failed: )([^"\n]*)/g,
    (_, head: string, list: string) => head + list.split(', ').sort().join(', '),
  );
}

const retcodes = new Map(
  readFileSync(join(DIR, 'salt-3007', 'retcodes.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ') as [string, string]),
);

describe('state functions and minion options, as Salt 3007.10', () => {
  const cases: [string, typeof CONF, string, unknown[], Record<string, unknown>?][] = [
    ['sls_id', CONF, 'state.sls_id', ['pkgconf', 'web']],
    ['state_test', CONF, 'state.test', ['web']],
    ['exclude_id', CONF, 'state.apply', ['web'], { exclude: [{ id: 'base_dir' }] }],
    ['exclude_sls', CONF, 'state.apply', ['wrap'], { exclude: 'web' }],
    ['pillar_override', CONF, 'state.apply', ['web'], { pillar: { who: 'cli' } }],
    ['saltenv_dev', CONF, 'state.apply', ['devstate'], { saltenv: 'dev' }],
    ['conf2_highstate', CONF2, 'state.apply', []],
    ['conf2_show_lowstate', CONF2, 'state.show_lowstate', []],
    ['req_more', CONF, 'state.apply', ['req_more']],
    ['test_more', CONF, 'state.apply', ['test_more']],
  ];
  for (const [name, config, fun, args, kwargs] of cases) {
    it(`${name}: ${fun} ${JSON.stringify(args)} ${JSON.stringify(kwargs ?? {})}`, async () => {
      const h = await createHarness({ pillar: PILLAR, config });
      const res = await h.call(fun, args, kwargs);
      expect(sortFailed(normalise(JSON.stringify({ local: res.return }, null, 4)) + '\n')).toBe(
        sortFailed(normalise(readFileSync(join(DIR, 'salt-3007', `${name}.json`), 'utf8'))),
      );
      // salt-call's exit code: 0, or 1 for any non-zero retcode (no --retcode-passthrough).
      expect(res.retcode === 0 ? '0' : '1').toBe(retcodes.get(name));
    });
  }

  it("sls_id of an ID no SLS has: Salt's SaltInvocationError, as a minion answers it", async () => {
    const h = await createHarness({ pillar: PILLAR, config: CONF });
    const res = await h.call('state.sls_id', ['nosuch', 'web']);
    expect(res.retcode).toBe(1);
    expect(res.return).toBe("ERROR executing 'state.sls_id': No matches for ID 'nosuch' found in SLS 'web' within saltenv 'base'");
  });

  it("prints the highstate as Salt's salt-call does with the minion options state_output_diff, state_output and state_verbose", async () => {
    const h = await createHarness({ pillar: PILLAR, config: CONF });
    const ret = (await h.call('state.apply', ['req_more'])).return;
    const views: [string, Record<string, unknown>][] = [
      ['req_more.highstate.txt', {}],
      ['req_more.state_output_diff.txt', { state_output_diff: true }],
      ['req_more.mixed_id_verbose_false.txt', { state_output: 'mixed_id', state_verbose: false }],
    ];
    for (const [file, options] of views) {
      const text = formatHighstate({ local: ret }, highstateOptionsOf(options, {})) + '\n';
      expect(sortFailed(normalise(text)), file).toBe(sortFailed(normalise(readFileSync(join(DIR, 'salt-3007', file), 'utf8'))));
    }
  });

  it('state.show_top with a top target for every match: type, as Salt 3007 matches them', async () => {
    const h = await createHarness({
      pillar: PILLAR,
      grains: { id: 'vec1', os: 'Debian', ipv4: ['127.0.0.1', '192.0.2.2'] },
      config: { ...CONF, state_top: 'matchers_top.sls', nodegroups: { webs: 'L@vec1,other' } },
    });
    const res = await h.call('state.show_top');
    expect(JSON.stringify({ local: res.return }, null, 4) + '\n').toBe(
      readFileSync(join(DIR, 'salt-3007', 'matchers_show_top.json'), 'utf8'),
    );
  });

  // runas: root needs root, as the capture had.
  it.skipIf(process.getuid?.() !== 0)(
    'cmd states: wait, wait_script, script, success_retcodes, shell, timeout, output_loglevel, runas, as Salt 3007 (a real shell)',
    async () => {
      const h = await createHarness({ pillar: PILLAR, config: CONF, shell: new NodeShell() });
      const res = await h.call('state.apply', ['cmd_more']);
      expect(normalise(JSON.stringify({ local: res.return }, null, 4)) + '\n').toBe(
        normalise(readFileSync(join(DIR, 'salt-3007', 'cmd_more.json'), 'utf8')),
      );
      expect(res.retcode === 0 ? '0' : '1').toBe(retcodes.get('cmd_more'));
    },
  );
});
