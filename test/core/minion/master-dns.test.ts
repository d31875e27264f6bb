/**
 * Salt's retry_dns and retry_dns_count at a minion's start: a master name that does not resolve is
 * looked up again every retry_dns seconds with Salt's error line, up to retry_dns_count times.
 * Driven with vitest's fake clock: the waits pass without waiting.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logLines } from '../../support/log-lines';
import { MasterUnresolvableError, waitForMasterDns } from '../../../src/core/minion/master-dns';
import { createLogging } from '../../../src/core/log';
import { Minion } from '../../../src/core/minion/job-loop';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A lookup that fails `failures` times, then answers. */
function dns(failures: number) {
  const asked: string[] = [];
  return {
    asked,
    lookup: async (host: string) => {
      asked.push(host);
      if (asked.length <= failures) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return { address: '192.0.2.7', family: 4 };
    },
  };
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const SALT_LINE = "ERROR Master hostname: 'salt.example' not found or not responsive. Retrying in 30 seconds";

describe('retry_dns', () => {
  it('looks an unresolvable master up again every retry_dns seconds, with Salt line, until it resolves', async () => {
    const { asked, lookup } = dns(3);
    const { lines, log } = logLines();
    let done = false;
    void waitForMasterDns({ master: 'salt.example', retry_dns: 30 }, lookup, pause, () => false, log).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect([asked.length, lines, done]).toEqual([1, [SALT_LINE], false]);
    await vi.advanceTimersByTimeAsync(30_000);
    expect([asked.length, lines.length, done]).toEqual([2, 2, false]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect([asked.length, lines, done]).toEqual([4, [SALT_LINE, SALT_LINE, SALT_LINE], true]);
  });

  it("gives up after retry_dns_count tries with Salt's text", async () => {
    const { asked, lookup } = dns(100);
    const { lines, log } = logLines();
    const outcome = waitForMasterDns({ master: 'salt.example', retry_dns: 30, retry_dns_count: 2 }, lookup, pause, () => false, log).catch(
      (err: unknown) => err,
    );
    await vi.advanceTimersByTimeAsync(60_000);
    const err = await outcome;
    expect(err).toBeInstanceOf(MasterUnresolvableError);
    expect((err as Error).message).toBe(
      "Master address: 'salt.example' could not be resolved. Invalid or unresolveable address. Set 'master' value in minion config.",
    );
    expect([asked.length, lines]).toEqual([3, [SALT_LINE, SALT_LINE]]);
  });

  it('does not look up an address, waits for nothing at retry_dns 0 (saying so), and ends when the minion stops', async () => {
    const { asked, lookup } = dns(100);
    const { lines, log } = logLines();
    await waitForMasterDns({ master: '192.0.2.7', retry_dns: 30 }, lookup, pause, () => false, log);
    await waitForMasterDns({ master: '::1', retry_dns: 30 }, lookup, pause, () => false, log);
    expect(asked).toEqual([]);
    await waitForMasterDns({ master: 'salt.example', retry_dns: 0 }, lookup, pause, () => false, log);
    expect(lines).toEqual([
      "WARNING Master hostname: 'salt.example' not found; retry_dns is 0, so this minion signs in to that name as it is (Salt would connect to 127.0.0.1)",
    ]);
    let stopped = false;
    const waiting = waitForMasterDns({ master: 'salt.example', retry_dns: 30 }, lookup, pause, () => stopped, log);
    await vi.advanceTimersByTimeAsync(10_000);
    stopped = true;
    await vi.advanceTimersByTimeAsync(20_000);
    await expect(waiting).resolves.toBeUndefined();
  });

  it("is where a minion's start begins: it waits for the name before it signs in", async () => {
    const { asked, lookup } = dns(1);
    const lines: string[] = [];
    const logging = createLogging({ level: 'error', console: true, stderr: { write: (l: string) => void lines.push(l) } });
    const settings = { id: 'dns1', master: 'salt.example', master_port: 1, pki_dir: '/nonexistent', keysize: 2048 };
    const minion = new Minion(
      {
        ...settings,
        acceptance_wait_time: 10,
        auth_timeout: 5,
        recon_default: 1000,
        recon_max: 10000,
        return_retry_timer: 5,
        return_retry_tries: 3,
      },
      { run: async () => ({ return: true, retcode: 0, success: true }) },
      { all: () => ({}) },
      logging.getLogger('salt.minion'),
      { lookup },
    );
    const started = minion.start().catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(0);
    expect(lines.join('')).toContain("Master hostname: 'salt.example' not found or not responsive. Retrying in 30 seconds");
    await minion.stop();
    await vi.advanceTimersByTimeAsync(30_000);
    await started;
    expect(asked).toEqual(['salt.example']);
  });
});
