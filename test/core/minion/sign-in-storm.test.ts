/**
 * The Minion against a fake master on loopback: sign-in rounds and their waits, and coming back
 * after the master restarts (new publish key, new sessions). Times are measured, never slept on:
 * every wait is for an event (a log line, a request, a return).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogging } from '../../../src/core/log';
import { Minion, type MinionSettings } from '../../../src/core/minion/job-loop';
import { freePort } from '../../support/ports';
import { FakeMaster, web1Pki, web1Settings } from './fake-master';

let root: string | undefined;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

class LogLines {
  readonly lines: string[] = [];
  /** performance.now() when each line was written, by index. */
  readonly times: number[] = [];
  private waiters: Array<{ re: RegExp; resolve: (at: number) => void }> = [];
  write = (line: string): boolean => {
    this.lines.push(line);
    this.times.push(performance.now());
    for (const w of [...this.waiters]) {
      if (w.re.test(line)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(performance.now());
      }
    }
    return true;
  };
  /** Resolves with the time the next line matching `re` is logged. */
  next(re: RegExp): Promise<number> {
    return new Promise((resolve) => this.waiters.push({ re, resolve }));
  }
}

async function setup(minion: Partial<MinionSettings>, random: () => number, ignoreAuth = 0) {
  root = mkdtempSync(join(tmpdir(), 'brine-storm-'));
  const pki = web1Pki(root);
  const ports = { retPort: await freePort(), pubPort: await freePort() };
  const master = new FakeMaster({ ...ports, ignoreAuth });
  await master.start();
  const log = new LogLines();
  const logger = createLogging({ level: 'info', console: true, stderr: log }).getLogger('salt.minion');
  const settings: MinionSettings = { ...web1Settings(ports.retPort, pki), ...minion };
  const executor = { run: async () => ({ return: true, retcode: 0, success: true }) };
  const m = new Minion(settings, executor, { all: () => ({}) }, logger, { random });
  cleanups.push(() => m.stop());
  return { master, minion: m, log, ports };
}

const job = (jid: string) => ({ tgt: 'web1', tgt_type: 'glob', jid, fun: 'test.ping', arg: [], ret: '', user: 'root' });

describe('sign-in rounds against a busy master', () => {
  it('sends auth_tries requests per round, each waiting longer, then waits acceptance_wait_time', async () => {
    const { master, minion, log } = await setup(
      { auth_timeout: 0.3, auth_tries: 2, acceptance_wait_time: 0.5 },
      () => 0, // no resend pause: the gaps below are the timeouts and the acceptance wait alone
      3,
    );
    cleanups.push(() => master.stop());
    await minion.start();
    expect(master.authTimes).toHaveLength(4);
    // The gaps are measured where the timers run, in the minion (the time a request spends in
    // transit under load is not part of them): a timer never fires early, so these are lower bounds.
    const timeouts = log.lines.flatMap((l, i) => (l.includes('did not answer the sign-in') ? [{ line: l, at: log.times[i] }] : []));
    expect(timeouts.map((x) => x.line.match(/\(try .*? s\)/)?.[0])).toEqual([
      '(try 1 of 2, 0.3 s)',
      '(try 2 of 2, 0.6 s)',
      '(try 1 of 2, 0.3 s)',
    ]);
    // try 2 waits 0.6 s after try 1 gave up; then the round is over: 0.5 s, and a new try 1 of 0.3 s.
    expect(timeouts[1].at - timeouts[0].at).toBeGreaterThanOrEqual(600 - 5);
    expect(timeouts[2].at - timeouts[1].at).toBeGreaterThanOrEqual(500 + 300 - 5);
    expect(log.lines.join('')).toContain('answered none of 2 sign-in requests; signing in again in 0.5 s');
  });
});

describe('the master restarts (new publish key, no sessions)', () => {
  it('a job published after the restart is run within acceptance_wait_time', async () => {
    // random 0.99: a long random_reauth_delay, so it is the job that makes the minion sign in.
    const { master, minion, log, ports } = await setup({ random_reauth_delay: 30 }, () => 0.99);
    await minion.start();
    await master.publishUntilReturned(job('20260101000000000001'));
    await master.stop();

    const again = new FakeMaster(ports);
    const back = log.next(/publisher is back: signing in again in 30 s/);
    await again.start();
    cleanups.push(() => again.stop());
    await back;
    const published = performance.now();
    const ret = await again.publishUntilReturned(job('20260101000000000002'));
    expect(ret.at - published).toBeLessThan(1000); // acceptance_wait_time is 1 s
    expect(again.authTimes).toHaveLength(1);
  });

  it('an idle minion signs in again random_reauth_delay after the publisher comes back', async () => {
    // random 0.5 of a 2 s random_reauth_delay: a whole number of seconds in [0, 2] -> 1 s.
    const { master, minion, log, ports } = await setup({ random_reauth_delay: 2 }, () => 0.5);
    await minion.start();
    await master.stop();
    const again = new FakeMaster(ports);
    const back = log.next(/publisher is back: signing in again in 1 s/);
    await again.start();
    cleanups.push(() => again.stop());
    const backAt = await back;
    const signedIn = await log.next(/Authentication with master successful/);
    expect(signedIn - backAt).toBeGreaterThanOrEqual(950);
    expect(again.authTimes).toHaveLength(1);
    // With the new key in hand, the next job runs without another sign-in.
    await again.publishUntilReturned(job('20260101000000000003'));
    expect(again.authTimes).toHaveLength(1);
  });
});
