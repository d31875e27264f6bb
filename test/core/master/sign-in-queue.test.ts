import { describe, expect, it } from 'vitest';
import { SignInQueue } from '../../../src/core/master/sign-in-queue';

/** A piece of work that finishes when told to. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SignInQueue', () => {
  it('runs at most `concurrency` at once, the rest in arrival order', async () => {
    const queue = new SignInQueue(2);
    const gates = Array.from({ length: 5 }, gate);
    const started: number[] = [];
    const done = gates.map((g, i) =>
      queue.run(`m${i}`, async () => {
        started.push(i);
        await g.opened;
        return i;
      }),
    );
    await turn();
    expect(started).toEqual([0, 1]);
    expect(queue.queued).toBe(3);
    gates[1]!.open();
    await turn();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.open();
    gates[2]!.open();
    await turn();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3]!.open();
    gates[4]!.open();
    expect(await Promise.all(done)).toEqual([0, 1, 2, 3, 4]);
    expect(queue.queued).toBe(0);
  });

  it('drops a waiting sign-in unanswered when the same minion asked again, and runs the newer one', async () => {
    const queue = new SignInQueue(1);
    const first = gate();
    const ran: string[] = [];
    const busy = queue.run('other', async () => {
      ran.push('other');
      await first.opened;
      return 'other';
    });
    const old = queue.run('web1', async () => {
      ran.push('web1 old');
      return 'old';
    });
    const renewed = queue.run('web1', async () => {
      ran.push('web1 new');
      return 'new';
    });
    first.open();
    expect(await Promise.all([busy, old, renewed])).toEqual(['other', null, 'new']);
    expect(ran).toEqual(['other', 'web1 new']);
    expect(queue.abandoned).toBe(1);
  });

  it('drops a waiting sign-in unanswered when its connection closed, and runs the others', async () => {
    const queue = new SignInQueue(1);
    const first = gate();
    const ran: string[] = [];
    const open = new Set(['a', 'b']);
    const busy = queue.run('web0', async () => {
      await first.opened;
      return 'web0';
    });
    const gone = queue.run(
      'web1',
      async () => (ran.push('web1'), 'web1'),
      () => open.has('a'),
    );
    const live = queue.run(
      'web2',
      async () => (ran.push('web2'), 'web2'),
      () => open.has('b'),
    );
    open.delete('a'); // web1 timed out and closed its socket while it waited
    first.open();
    expect(await Promise.all([busy, gone, live])).toEqual(['web0', null, 'web2']);
    expect(ran).toEqual(['web2']);
    expect(queue.abandoned).toBe(1);
  });

  it('passes the turn on when a sign-in fails', async () => {
    const queue = new SignInQueue(1);
    const failing = queue.run('bad', async () => {
      throw new Error('bad key');
    });
    const next = queue.run('good', async () => 'ok');
    await expect(failing).rejects.toThrow('bad key');
    expect(await next).toBe('ok');
    // and the slot is free again
    expect(await queue.run('later', async () => 'again')).toBe('again');
  });
});
