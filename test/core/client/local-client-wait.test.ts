import { describe, expect, it } from 'vitest';
import { JobWaiter } from '../../../src/core/client/local-client-wait';
import type { LocalClient, Publication, PublishRequest } from '../../../src/core/client/local-client';
import { encode } from '../../../src/core/protocol/msgpack';

/** A LocalClient stand-in: publish answers from a script, events come from a queue. */
class FakeClient {
  readonly published: PublishRequest[] = [];
  private readonly queue: Array<{ tag: string; body: Buffer }> = [];
  private serial = 0;
  constructor(private readonly onPublish: (req: PublishRequest, jid: string) => Partial<Publication> = () => ({})) {}

  ret(jid: string, id: string, ret: unknown): void {
    this.queue.push({ tag: `salt/job/${jid}/ret/${id}`, body: encode({ id, jid, return: ret, retcode: 0, success: true }) });
  }

  async publish(req: PublishRequest): Promise<Publication> {
    this.published.push(req);
    const jid = `2026120200000000000${++this.serial}`;
    const minions = Array.isArray(req.tgt) ? req.tgt : [req.tgt];
    return { jid, minions, notConnected: [], ...this.onPublish(req, jid) };
  }

  async nextEvent(ms: number): Promise<{ tag: string; body: Buffer } | null> {
    const ev = this.queue.shift();
    if (ev) return ev;
    await new Promise((r) => setTimeout(r, Math.min(ms, 5)));
    return this.queue.shift() ?? null;
  }
}

async function drain(w: JobWaiter) {
  const out = [];
  for (let ev = await w.next(); ev; ev = await w.next()) out.push(ev);
  return out;
}

const pub = (minions: string[]): Publication => ({ jid: '20261202131309576618', minions, notConnected: [] });

describe('JobWaiter', () => {
  it('yields each return once and ends when every minion answered, without asking find_job', async () => {
    const client = new FakeClient();
    client.ret('20261202131309576618', 'a', true);
    client.ret('20261202131309576618', 'a', true);
    client.ret('20261202131309576618', 'b', 'x');
    const w = new JobWaiter(client as unknown as LocalClient, { timeoutMs: 1000, gatherMs: 1000 });
    w.add(pub(['a', 'b']));
    const evs = await drain(w);
    expect(evs.map((e) => (e.kind === 'return' ? e.ret.id : 'done'))).toEqual(['a', 'b', 'done']);
    expect(evs[2]).toEqual({ kind: 'done', jid: '20261202131309576618', missing: [] });
    expect(client.published).toEqual([]);
  });

  it('asks the missing minions with saltutil.find_job (tgt_type list) and tells Not connected from No response', async () => {
    const client = new FakeClient(() => ({ notConnected: ['c'] }));
    client.ret('20261202131309576618', 'a', true);
    const w = new JobWaiter(client as unknown as LocalClient, { timeoutMs: 10, gatherMs: 10 });
    w.add(pub(['a', 'b', 'c']));
    const evs = await drain(w);
    expect(client.published).toEqual([{ tgt: ['b', 'c'], tgtType: 'list', fun: 'saltutil.find_job', arg: ['20261202131309576618'] }]);
    expect(evs.at(-1)).toEqual({
      kind: 'done',
      jid: '20261202131309576618',
      missing: [
        { id: 'b', reason: 'No response' },
        { id: 'c', reason: 'Not connected' },
      ],
    });
  });

  it('keeps waiting while find_job says the job still runs, and yields the late return', async () => {
    let asked = 0;
    const client = new FakeClient((req, jid) => {
      asked += 1;
      // First question: still running; second: the return has come in meanwhile.
      if (asked === 1) client.ret(jid, 'b', { jid: '20261202131309576618', fun: 'test.sleep', pid: 7 });
      else client.ret('20261202131309576618', 'b', true);
      return {};
    });
    const w = new JobWaiter(client as unknown as LocalClient, { timeoutMs: 10, gatherMs: 200 });
    w.add(pub(['b']));
    const evs = await drain(w);
    expect(evs).toEqual([
      { kind: 'return', ret: expect.objectContaining({ id: 'b', return: true }) },
      { kind: 'done', jid: '20261202131309576618', missing: [] },
    ]);
    expect(asked).toBe(2);
  });

  it('refuses a negative wait', () => {
    expect(() => new JobWaiter(new FakeClient() as unknown as LocalClient, { timeoutMs: -1, gatherMs: 1 })).toThrow(
      expect.objectContaining({ code: 'BAD_WAIT_OPTION' }),
    );
  });
});
