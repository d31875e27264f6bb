import { parse } from '@oclif/core/parser';
import { describe, expect, it } from 'vitest';
import { SALT, SALT_CALL, SALT_MASTER, SALT_MINION, type CommandSpec } from '../../src/cli/flag-specs';
import { oclifArgs, oclifFlags } from '../../src/cli/flags';
import { positionalWords } from '../../src/cli/args';
import { quickParse } from '../../src/cli/quick-parse';

/** What oclif makes of the same line: flags (booleans not given read as false) and words in order. */
async function oclifParse(spec: CommandSpec, argv: string[]) {
  const out = await parse(argv, { flags: oclifFlags(spec.flags), args: oclifArgs(spec), strict: false });
  const flags: Record<string, unknown> = { ...out.flags };
  for (const [name, flag] of Object.entries(spec.flags)) if (flag.type === 'boolean') flags[name] ??= false;
  return { flags, words: positionalWords(out.raw) };
}

describe('quickParse', () => {
  const lines: [CommandSpec, string[]][] = [
    [SALT_CALL, ['--local', 'test.ping']],
    [SALT_CALL, ['-c', '/tmp/x', '--local', 'state.apply', 'web', 'test=True', '-l', 'debug']],
    [SALT_CALL, ['-c/tmp/x', '--out=json', '--output-indent', '2', 'grains.item', 'os']],
    [SALT_CALL, ['--local', 'test.arg', 'a', '--', '-b', 'c=1', '--out', 'json']],
    [SALT_CALL, ['test.echo', '-', '--state_output', 'terse', '--no-colour', '--retcode-passthrough']],
    [SALT_CALL, ['--id', 'web1', '--set-metadata', '{"a": 1}', '--return', 'a,b', 'test.ping']],
    [SALT, ['*', 'test.ping']],
    [SALT, ['-G', 'os:Debian', 'cmd.run', 'uptime', '-t', '30', '--static']],
    [SALT, ['-L', 'web1,db1', 'mine.get', '*', 'test.ping', '--batch-size', '10%', '--delimiter', '|']],
    [SALT, ['-C', 'G@os:Debian and web*', 'state.apply', '--state-output=changes', '--async']],
    [SALT_MINION, ['-c', '/tmp/m', '-l', 'info', '--log-file', '/tmp/m/log']],
    [SALT_MINION, ['--print-id']],
    [SALT_MASTER, ['-d', '--log-file-level', 'debug']],
  ];

  it.each(lines)('reads a plain command line as oclif does: %#', async (spec, argv) => {
    const quick = quickParse(spec, argv);
    expect(quick).toBeDefined();
    expect(quick).toEqual(await oclifParse(spec, argv));
  });

  it('applies defaults: booleans false, -c /etc/salt, salt --delimiter :', () => {
    const parsed = quickParse(SALT, ['web*', 'test.ping'])!;
    expect(parsed.flags['config-dir']).toBe('/etc/salt');
    expect(parsed.flags.delimiter).toBe(':');
    expect(parsed.flags.static).toBe(false);
    expect(parsed.flags.timeout).toBeUndefined();
    expect(parsed.flags.timeout === undefined && parsed.words).toEqual(['web*', 'test.ping']);
  });

  // Each of these is oclif's to answer (help, or its usage error with exit 64).
  const leftToOclif: [CommandSpec, string[]][] = [
    [SALT_CALL, ['--help']],
    [SALT_CALL, ['-h']],
    [SALT_CALL, ['--local']], // the function is missing
    [SALT_CALL, ['--local', '--bogus', 'test.ping']],
    [SALT_CALL, ['--local', 'test.echo', '-x']],
    [SALT_CALL, ['-l', 'nope', 'test.ping']],
    [SALT_CALL, ['--out-indent', 'two', 'test.ping']],
    [SALT_CALL, ['--out', 'json', '--out', 'yaml', 'test.ping']],
    [SALT_CALL, ['--no-parse', 'a', 'test.arg', 'a=1']],
    [SALT_CALL, ['--local=yes', 'test.ping']],
    [SALT_CALL, ['--id', '--local', 'test.ping']],
    [SALT_CALL, ['test.ping', '-c']],
    [SALT, ['-Lv', 'a,b', 'test.ping']],
    [SALT, ['-c=/tmp', '*', 'test.ping']],
    [SALT, ['*']],
  ];

  it.each(leftToOclif)('leaves an unusual line to oclif: %#', (spec, argv) => {
    expect(quickParse(spec, argv)).toBeUndefined();
  });

  it('oclif refuses the usage errors it is left', async () => {
    for (const argv of [['--local', '--bogus', 'test.ping'], ['-l', 'nope', 'test.ping'], ['--local']]) {
      await expect(oclifParse(SALT_CALL, argv)).rejects.toThrow();
    }
  });
});
