import { describe, expect, it } from 'vitest';
import { CommandExecutionError, Fn, IJobContext, ISalt, InvocationError, Module, inject } from 'brine/plugin';
import { createHarness } from 'brine/testing';

@Module('ex', { doc: 'executor fixtures' })
class Ex {
  constructor(
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(ISalt) private readonly salt: ISalt,
  ) {}

  @Fn({ summary: 'Echo it.', examples: ['salt * ex.echo hi'] })
  echo(text: unknown): unknown {
    return text;
  }
  @Fn()
  fail(): never {
    throw new CommandExecutionError('disk full');
  }
  @Fn()
  invalid(): never {
    throw new InvocationError('bad value');
  }
  @Fn()
  crash(): never {
    throw new TypeError('x is not a function');
  }
  @Fn()
  setcode(code: number): string {
    this.job.retcode = code;
    return 'set';
  }
  @Fn()
  result(ok: boolean): Record<string, unknown> {
    return { result: ok, comment: 'c' };
  }
  @Fn()
  async cross(fun: string, ...args: unknown[]): Promise<unknown> {
    return this.salt.call(fun, args);
  }
  @Fn()
  context(): Record<string, unknown> {
    return { jid: this.job.jid, fun: this.job.fun, user: this.job.user, args: this.job.args, tgtType: this.job.tgtType };
  }
}

async function harness() {
  return createHarness({ modules: [Ex] });
}

describe('Executor', () => {
  it('answers a missing function as Salt does', async () => {
    const h = await harness();
    expect(await h.call('nope.fn')).toEqual({ return: "'nope.fn' is not available.", retcode: 1, success: false, out: 'nested' });
    expect(await h.call('ping')).toMatchObject({ return: "'ping' is not available.", retcode: 1 });
  });

  it('returns the docs of functions starting with a partial name', async () => {
    const h = await harness();
    const res = await h.call('ex.ech');
    expect(res.return).toEqual({
      'ex.echo': '\n    Echo it.\n\n    CLI Example:\n\n        salt * ex.echo hi\n    ',
      'ex.ech': "'ex.ech' is not available.",
    });
    expect(res.retcode).toBe(1);
  });

  it('maps errors to Salt texts and retcode 1', async () => {
    const h = await harness();
    expect(await h.call('ex.fail')).toEqual({ return: 'ERROR: disk full', retcode: 1, success: false, out: 'nested' });
    expect((await h.call('ex.invalid')).return).toBe("ERROR executing 'ex.invalid': bad value");
    const crash = await h.call('ex.crash');
    expect(crash.retcode).toBe(1);
    expect(crash.success).toBe(false);
    expect(String(crash.return)).toMatch(/^The minion function caused an exception: TypeError: x is not a function\n/);
    expect(await h.call('ex.echo')).toEqual({
      return:
        "Passed invalid arguments to ex.echo: echo() missing 1 required positional argument: 'text'\n\n    Echo it.\n\n    CLI Example:\n\n        salt * ex.echo hi\n    ",
      retcode: 1,
      success: false,
      out: 'nested',
    });
    expect((await h.call('ex.echo', ['a'], { bogus: 1 })).return).toBe(
      "ERROR executing 'ex.echo': The following keyword arguments are not valid: bogus=1",
    );
  });

  it('takes the retcode a function sets, and 1 for a failed result map', async () => {
    const h = await harness();
    expect(await h.call('ex.setcode', [3])).toEqual({ return: 'set', retcode: 3, success: false });
    expect(await h.call('ex.setcode', [0])).toEqual({ return: 'set', retcode: 0, success: true });
    expect((await h.call('ex.result', [false])).retcode).toBe(1);
    expect((await h.call('ex.result', [true])).retcode).toBe(0);
  });

  it('gives each job its context, and cross-calls share it', async () => {
    const h = await harness();
    const res = await h.call('ex.context', [], {});
    expect(res.return).toMatchObject({ fun: 'ex.context', user: 'root', args: [], tgtType: 'glob' });
    expect(await h.call('ex.cross', ['ex.setcode', 5])).toEqual({ return: 'set', retcode: 5, success: false });
    expect(await h.call('ex.cross', ['ex.nope'])).toMatchObject({ retcode: 1, success: false });
    expect((await h.call('ex.cross', ['ex.fail'])).return).toBe('ERROR: disk full');
  });

  it('runs jobs concurrently without mixing their contexts', async () => {
    const h = await harness();
    const results = await Promise.all([1, 2, 3, 4].map((n) => h.call('ex.setcode', [n])));
    expect(results.map((r) => r.retcode)).toEqual([1, 2, 3, 4]);
  });
});
