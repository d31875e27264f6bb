/**
 * Salt's ping_interval and auth_safemode: the minion daemon sends the master a `minion_ping` event
 * every N minutes; with auth_safemode, a ping the master does not answer restarts the minion's
 * service, with Salt's lines. Driven with vitest's fake clock: the minutes pass without waiting.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logLines } from '../support/log-lines';
import { masterPinger } from '../../src/cli/minion-runtime';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('ping_interval', () => {
  it('pings every N minutes until stopped, and does nothing at 0', async () => {
    const ping = vi.fn(async () => undefined);
    const restart = vi.fn(async () => true);
    const { lines, log } = logLines();
    const pinger = masterPinger({ ping_interval: 2, auth_safemode: false, random_reauth_delay: 10 }, ping, restart, log);
    pinger.start();
    await vi.advanceTimersByTimeAsync(2 * 60_000 - 1);
    expect(ping).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(ping).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(4 * 60_000);
    expect(ping).toHaveBeenCalledTimes(3);
    pinger.stop();
    await vi.advanceTimersByTimeAsync(60 * 60_000);
    expect(ping).toHaveBeenCalledTimes(3);

    const never = vi.fn(async () => undefined);
    masterPinger({ ping_interval: 0, auth_safemode: true, random_reauth_delay: 10 }, never, restart, log).start();
    await vi.advanceTimersByTimeAsync(24 * 60 * 60_000);
    expect(never).not.toHaveBeenCalled();
    expect([restart.mock.calls.length, lines]).toEqual([0, []]);
  });

  it('lets an unanswered ping go without auth_safemode', async () => {
    const restart = vi.fn(async () => true);
    const { lines, log } = logLines();
    const failing = async () => Promise.reject(new Error('the master did not answer in 60 s'));
    const pinger = masterPinger({ ping_interval: 1, auth_safemode: false, random_reauth_delay: 10 }, failing, restart, log);
    pinger.start();
    await vi.advanceTimersByTimeAsync(3 * 60_000);
    pinger.stop();
    expect([restart.mock.calls.length, lines]).toEqual([0, []]);
  });

  it("restarts the minion's service with auth_safemode, in Salt's words, and says so when it cannot", async () => {
    const restart = vi.fn(async (_service: string) => true);
    const { lines, log } = logLines();
    const failing = async () => Promise.reject(new Error('the master did not answer in 60 s'));
    const pinger = masterPinger({ ping_interval: 1, auth_safemode: true, random_reauth_delay: 7 }, failing, restart, log);
    pinger.start();
    await vi.advanceTimersByTimeAsync(60_000);
    pinger.stop();
    expect(restart.mock.calls).toEqual([['salt-minion']]);
    expect(lines).toEqual(['ERROR ** Master Ping failed. Attempting to restart minion**', 'INFO delaying random_reauth_delay 7s']);

    const noInit = logLines();
    const cannot = masterPinger(
      { ping_interval: 1, auth_safemode: true, random_reauth_delay: 7 },
      failing,
      async () => Promise.reject(new Error("'service.restart' is not available.")),
      noInit.log,
    );
    cannot.start();
    await vi.advanceTimersByTimeAsync(60_000);
    cannot.stop();
    expect(noInit.lines[2]).toMatch(
      /^WARNING ping_interval reached without response from the master, but service.restart could not be run to restart the minion daemon\. ping_interval requires that the minion is running under an init system\. \('service\.restart' is not available\.\)$/,
    );
  });
});
