import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatOutput, noReturnMessage, type OutputOptions, type Outputter } from '../../../src/cli/output';

// The captured Salt 3007 output is the contract: read it at test time from ../shared/salt-wire.
const SAMPLES = path.resolve(__dirname, '../../../..', 'shared/salt-wire/cli-output-samples.md');

/** Section title -> the block's stdout lines (command line, exit code and stderr ERROR lines removed). */
function readSamples(): Map<string, string> {
  const text = fs.readFileSync(SAMPLES, 'utf8');
  const blocks = new Map<string, string>();
  const re = /^## (.+)\n(?:(?!^## )[\s\S])*?^```text\n([\s\S]*?)^```$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lines = m[2].split('\n');
    lines.pop(); // the newline before the closing fence
    if (lines[0]?.startsWith('$ ')) lines.shift();
    if (/^\[exit code \d+\]$/.test(lines[lines.length - 1] ?? '')) lines.pop();
    const stdout = lines.filter((l) => !l.startsWith('ERROR: '));
    blocks.set(m[1], stdout.length ? stdout.join('\n') + '\n' : '');
  }
  return blocks;
}

const testArgReturn = (jid: string) => ({
  args: [1, 'two'],
  kwargs: {
    foo: 'bar',
    __pub_fun: 'test.arg',
    __pub_arg: [1, 'two', { __kwarg__: true, foo: 'bar' }],
    __pub_tgt: 'db1',
    __pub_jid: jid,
    __pub_ret: '',
    __pub_tgt_type: 'glob',
    __pub_user: 'root',
  },
});

// [section title, outputter, returns in arrival order, options]
const perMinion: OutputOptions = { static: false };
const cases: [string, Outputter, unknown, OutputOptions][] = [
  ["salt '*' test.ping (default nested outputter)", 'nested', { web2: true, db1: true, web1: true }, perMinion],
  ["salt 'web*' test.ping", 'nested', { web2: true, web1: true }, perMinion],
  ["salt -G 'os:Debian' cmd.run 'echo hi'", 'nested', { web1: 'hi', db1: 'hi', web2: 'hi' }, perMinion],
  ['--out json (one JSON document per minion, as returns arrive)', 'json', { web2: true, web1: true, db1: true }, perMinion],
  ['--out json --static (one document for all minions)', 'json', { web2: true, web1: true, db1: true }, { static: true }],
  ['--out yaml', 'yaml', { web2: true, web1: true, db1: true }, perMinion],
  ['--out txt', 'txt', { web2: true, web1: true, db1: true }, perMinion],
  ['list target', 'nested', { web1: true, db1: true }, perMinion],
  ['nested outputter: dict/list return (test.arg)', 'nested', { db1: testArgReturn('20261202125647025522') }, perMinion],
  ['same with --out json', 'json', { db1: testArgReturn('20261202125650981775') }, perMinion],
  ['multi-line string return', 'nested', { db1: 'a\nb\nc' }, perMinion],
  ['test.echo --out yaml', 'yaml', { web2: 'hello world' }, perMinion],
  ["non-zero retcode (cmd.run 'echo out; exit 3'): stdout", 'nested', { web1: 'out' }, perMinion],
  ['non-zero retcode with --out json', 'json', { web1: '' }, perMinion],
  ['stdout+stderr of the command both end up in the return', 'nested', { web1: 'out\nerr' }, perMinion],
  [
    'one minion down (db1 stopped), default outputter',
    'nested',
    { web1: true, web2: true, db1: noReturnMessage('20261202131309576618') },
    perMinion,
  ],
  ['one minion down, --out json', 'json', { web1: true, web2: true, db1: noReturnMessage('20261202131325445421') }, perMinion],
  ["salt '*' test.ping right after `salt-key -d web2 -y` (web2 not targeted any more)", 'nested', { web1: true, db1: true }, perMinion],
  ['salt web1 pillar.items', 'nested', { web1: { nested: { key: 'value' }, numbers: [1, 2], role: 'test' } }, perMinion],
  ['salt-call --local test.ping', 'nested', { local: true }, {}],
  ['salt-call --local test.ping --out json', 'json', { local: true }, {}],
  ['salt-key -L --out json', 'json', { minions: [], minions_pre: ['db1', 'web1', 'web2'], minions_rejected: [], minions_denied: [] }, {}],
];

describe('outputters reproduce cli-output-samples.md byte for byte', () => {
  const samples = readSamples();

  it('finds the sample file and its blocks', () => {
    expect(samples.size).toBeGreaterThan(25);
  });

  it.each(cases)('%s', (title, outputter, data, opts) => {
    const expected = samples.get(title);
    expect(expected, `no sample block titled "${title}"`).toBeDefined();
    expect(formatOutput(outputter, data, opts)).toBe(expected);
  });
});
