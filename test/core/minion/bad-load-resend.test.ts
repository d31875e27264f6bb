/**
 * A minion's requests to a Salt master whose workers disagree on its session key. Salt 3007.10's
 * master does this when two sign-ins of one new minion reach two of its workers at once (each
 * worker writes a session key; measured: 2 of 10 new minions signing in four times at once got
 * two keys). The worker left with the other key answers every request it is handed "bad load",
 * so the minion signs in again and resends, more than once, each pair going to the next workers.
 */
import { describe, expect, it } from 'vitest';
import { createLogging } from '../../../src/core/log';
import { MinionChannel } from '../../../src/core/minion/channel-client';
import { Minion } from '../../../src/core/minion/job-loop';
import { freePort } from '../../support/ports';
import { FakeMaster, perTestRoot, web1Pki, web1Settings } from './fake-master';

const { make: makeRoot, cleanups } = perTestRoot('brine-badload-');

/** A fake master of `workers` workers, split by `split`, and a log to read. */
async function splitMaster(workers: number, split: (master: FakeMaster) => void) {
  const root = makeRoot();
  const pki = web1Pki(root);
  const ports = { retPort: await freePort(), pubPort: await freePort() };
  const master = new FakeMaster({ ...ports, workers });
  await master.start();
  cleanups.push(() => master.stop());
  split(master);
  const lines: string[] = [];
  const log = createLogging({ level: 'info', console: true, stderr: { write: (l: string) => lines.push(l) > 0 } }).getLogger('salt.minion');
  return { master, lines, log, settings: web1Settings(ports.retPort, pki) };
}

/** A minion channel (id web1) signed in to a split master. */
async function signedIn(workers: number, split: (master: FakeMaster) => void) {
  const { master, lines, log, settings } = await splitMaster(workers, split);
  const channel = new MinionChannel(settings, log);
  cleanups.push(() => channel.stop());
  await channel.connect();
  return { master, channel, lines };
}

const ret = (jid: string) => ({ cmd: '_return', jid, fun: 'test.ping', return: true, retcode: 0, success: true });

describe('a master whose workers hold different session keys for the minion', () => {
  it('signs in again and resends until a worker with its key answers, more than once if need be', async () => {
    // Three workers, the first keeping its own key: the first sign-in gets that one (worker 0),
    // the return goes to worker 1 (refused), signing in again to worker 2 gets the shared key and
    // the resend goes to worker 0 (refused again); the third pair (1, 2) goes through. Salt's own
    // minion, and brine's before, gave up after the first resend.
    const { master, channel, lines } = await signedIn(3, (m) => m.splitSession(0, 'web1'));
    await channel.request(ret('20261207000000000001'));
    expect(master.returns.map((r) => r.jid)).toEqual(['20261207000000000001']);
    expect(master.authTimes).toHaveLength(3);
    expect(lines.filter((l) => l.includes('refused the _return request ("bad load"): signing in again and resending'))).toHaveLength(2);
  });

  it('gives up with an error naming the refusals after three resends, and the channel still works', async () => {
    // Two workers, the first keeping its own key: every sign-in goes to one and every request to
    // the other, so each request is refused.
    const { master, channel } = await signedIn(2, (m) => m.splitSession(0, 'web1'));
    await expect(channel.request(ret('20261207000000000002'))).rejects.toMatchObject({
      code: 'MASTER_BAD_LOAD',
      message: expect.stringContaining('refused the _return request ("bad load") 4 times'),
    });
    expect(master.authTimes).toHaveLength(4);
    expect(master.returns).toEqual([]);
    // Restarted, Salt's workers all take the key on file again: the same channel signs in
    // again once (its key was the odd one) and delivers.
    master.forgetWorkerKeys();
    await channel.request(ret('20261207000000000003'));
    expect(master.returns.map((r) => r.jid)).toEqual(['20261207000000000003']);
    expect(master.authTimes).toHaveLength(5);
  });

  it('a minion whose announcement is refused starts all the same, and sends its grains before the next return', async () => {
    const { master, lines, log, settings } = await splitMaster(2, (m) => m.splitSession(0, 'web1'));
    const executor = { run: async () => ({ return: true, retcode: 0, success: true }) };
    const minion = new Minion(settings, executor, { all: () => ({ os: 'Debian' }) }, log);
    cleanups.push(() => minion.stop());
    await minion.start();
    expect(lines.some((l) => l.includes('Could not announce this minion to the master') && l.includes('4 times'))).toBe(true);
    expect(master.commands).toEqual([]);
    master.forgetWorkerKeys();
    const job = { tgt: 'web1', tgt_type: 'glob', jid: '20261207000000000004', fun: 'test.ping', arg: [], ret: '', user: 'root' };
    expect((await master.publishUntilReturned(job)).return).toBe(true);
    expect(master.commands).toEqual(['_pillar', '_return']);
  });
});
