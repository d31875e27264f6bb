import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { BRINE_VERSION } from 'brine/plugin';
import { createHarness } from 'brine/testing';
import { Executor } from '../../../src/plugins/executor';

describe('test module', () => {
  it('ping, echo, version, true, false, outputter', async () => {
    const h = await createHarness();
    expect((await h.call('test.ping')).return).toBe(true);
    expect((await h.call('test.echo', ['hello world'])).return).toBe('hello world');
    // The Salt release brine reproduces, so Salt masters and tools see a current minion.
    expect((await h.call('test.version')).return).toBe('3007.10');
    expect((await h.call('test.true')).return).toBe(true);
    expect((await h.call('test.false')).return).toBe(false);
    expect((await h.call('test.outputter', [{ a: [1] }])).return).toEqual({ a: [1] });
    const report = String((await h.call('test.versions_report')).return);
    expect(report).toMatch(/^Salt Version:\n +brine: .+\n +Salt: 3007\.10\n\nNode Version:\n/);
    expect(report).toContain(`brine: ${BRINE_VERSION}`);
    // brine's own dependencies, with their installed versions, aligned as Salt aligns them.
    expect(report).toMatch(/\n +zeromq: 6\.\d+\.\d+\n/);
    expect(report).toMatch(/\n +yaml: 2\.\d+\.\d+\n/);
  });

  it('test.arg returns args and kwargs with __pub_* exactly as the Salt capture', async () => {
    const h = await createHarness();
    const executor = new Executor(h.plugins);
    const arg = [1, 'two', { __kwarg__: true, foo: 'bar' }];
    const res = await executor.run({
      fun: 'test.arg',
      arg,
      jid: '20261202125650981775',
      user: 'root',
      tgt: 'db1',
      tgtType: 'glob',
      ret: '',
    });
    // Key order of the capture's JSON: foo, then __pub_fun, __pub_arg, __pub_tgt, __pub_jid, __pub_ret, __pub_tgt_type, __pub_user.
    expect(JSON.stringify(res.return)).toBe(
      JSON.stringify({
        args: [1, 'two'],
        kwargs: {
          foo: 'bar',
          __pub_fun: 'test.arg',
          __pub_arg: [1, 'two', { __kwarg__: true, foo: 'bar' }],
          __pub_tgt: 'db1',
          __pub_jid: '20261202125650981775',
          __pub_ret: '',
          __pub_tgt_type: 'glob',
          __pub_user: 'root',
        },
      }),
    );
    expect(res.retcode).toBe(0);
  });

  it('kwarg, arg_type, arg_repr', async () => {
    const h = await createHarness();
    expect((await h.call('test.kwarg', [], { num: 1 })).return).toMatchObject({ num: 1, __pub_fun: 'test.kwarg' });
    const types = (await h.call('test.arg_type', [1, 'int', 1.5, true, null, [1], {}])).return as { args: string[] };
    expect(types.args).toEqual([
      "<class 'int'>",
      "<class 'str'>",
      "<class 'float'>",
      "<class 'bool'>",
      "<class 'NoneType'>",
      "<class 'list'>",
      "<class 'dict'>",
    ]);
    const repr = (await h.call('test.arg_repr', [1, "it's", null])).return as { args: string; kwargs: string };
    expect(repr.args).toBe(`(1, "it's", None)`);
    expect(repr.kwargs).toContain("'__pub_fun': 'test.arg_repr'");
    expect(((await h.call('test.arg_repr', ['x'])).return as { args: string }).args).toBe("('x',)");
  });

  it('fib returns the num-th Fibonacci number and a duration; collatz the sequence', async () => {
    const h = await createHarness();
    const [n, secs] = (await h.call('test.fib', [10])).return as [number, number];
    expect(n).toBe(55);
    expect(typeof secs).toBe('number');
    expect(((await h.call('test.fib', [1])).return as number[])[0]).toBe(1);
    expect((await h.call('test.fib', [-1])).retcode).toBe(1);
    expect(((await h.call('test.collatz', [3])).return as unknown[])[0]).toEqual([3, 10, 5, 16, 8, 4, 2]);
  });

  it('retcode sets the job retcode (default 42) and returns True', async () => {
    const h = await createHarness();
    expect(await h.call('test.retcode')).toEqual({ return: true, retcode: 42, success: false });
    expect(await h.call('test.retcode', [3])).toEqual({ return: true, retcode: 3, success: false });
    expect(await h.call('test.retcode', [0])).toEqual({ return: true, retcode: 0, success: true });
  });

  it('exception raises like Python Exception', async () => {
    const h = await createHarness();
    const res = await h.call('test.exception', ['Oh noes!']);
    expect(res.retcode).toBe(1);
    expect(String(res.return)).toMatch(/^The minion function caused an exception: Exception: Oh noes!\n/);
    expect(String((await h.call('test.exception')).return)).toContain('Exception: Test Exception');
  });

  it('sleep returns True, rand_sleep 0, and argument errors are Salt-like', async () => {
    const h = await createHarness();
    expect((await h.call('test.sleep', [0])).return).toBe(true);
    expect((await h.call('test.rand_sleep', [], { max: 0 })).return).toBe(true);
    expect((await h.call('test.sleep')).return).toEqual(
      expect.stringContaining("Passed invalid arguments to test.sleep: sleep() missing 1 required positional argument: 'length'"),
    );
    expect((await h.call('test.echo', ['a', 'b'])).return).toEqual(
      expect.stringContaining('echo() takes 1 positional argument but 2 were given'),
    );
  });

  it('random_hash uses the config hash_type; cross_test calls another function; get_opts', async () => {
    const h = await createHarness({ config: { hash_type: 'md5' } });
    expect(String((await h.call('test.random_hash')).return)).toMatch(/^[0-9a-f]{32}$/);
    expect((await h.call('test.random_hash', [1], { hash_type: 'sha256' })).return).toBe(createHash('sha256').update('1').digest('hex'));
    expect((await h.call('test.cross_test', ['test.echo', ['hi']])).return).toBe('hi');
    expect((await h.call('test.get_opts')).return).toMatchObject({ id: 'minion', hash_type: 'md5' });
  });
});
