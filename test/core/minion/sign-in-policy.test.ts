import { describe, expect, it } from 'vitest';
import {
  authTryTimeoutMs,
  checkSignInSettings,
  MAX_AUTH_TRY_MS,
  nextAcceptanceWait,
  randomDelayMs,
  returnRetryTimerS,
  resendPauseMs,
  subscribeReconnect,
} from '../../../src/core/minion/sign-in-policy';

const fixed = (x: number) => () => x;

describe('one sign-in round: auth_tries tries with growing timeouts', () => {
  it('waits auth_timeout first, then twice as long each try, at most 60 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((k) => authTryTimeoutMs(5, k))).toEqual([5000, 10000, 20000, 40000, 60000, 60000, 60000]);
  });

  it('never cuts an auth_timeout that is above the cap', () => {
    expect(authTryTimeoutMs(90, 1)).toBe(90_000);
    expect(authTryTimeoutMs(90, 3)).toBe(90_000);
    expect(MAX_AUTH_TRY_MS).toBe(60_000);
  });

  it('pauses a random part of auth_timeout before a resend, so resends spread out', () => {
    expect(resendPauseMs(5, fixed(0))).toBe(0);
    expect(resendPauseMs(5, fixed(0.5))).toBe(2500);
    expect(resendPauseMs(5, fixed(0.9999))).toBeLessThan(5000);
  });
});

describe('acceptance_wait_time and acceptance_wait_time_max', () => {
  it('keeps the wait when no max is set (Salt default 0)', () => {
    expect(nextAcceptanceWait(10, 10, 0)).toBe(10);
  });

  it('grows by acceptance_wait_time each round up to the max', () => {
    const waits = [10];
    for (let i = 0; i < 5; i++) waits.push(nextAcceptanceWait(waits[waits.length - 1], 10, 35));
    expect(waits).toEqual([10, 20, 30, 35, 35, 35]);
  });

  it('does not shrink a wait already above a smaller max', () => {
    expect(nextAcceptanceWait(10, 10, 5)).toBe(10);
  });
});

describe('return_retry_timer and return_retry_timer_max', () => {
  it("is a whole number of seconds from the timer to its max (Salt's randint), or the timer alone", () => {
    expect(returnRetryTimerS(5, 10, fixed(0))).toBe(5);
    expect(returnRetryTimerS(5, 10, fixed(0.5))).toBe(8);
    expect(returnRetryTimerS(5, 10, fixed(0.9999))).toBe(10);
    expect(returnRetryTimerS(5, 0, fixed(0.9999))).toBe(5);
    // A max below the timer is Salt's error case; a timer of 1.5 draws from 2.
    expect(returnRetryTimerS(5, 3, fixed(0.9999))).toBe(5);
    expect(returnRetryTimerS(1.5, 3, fixed(0))).toBe(2);
  });
});

describe('random_reauth_delay', () => {
  it('is a whole number of seconds between 0 and the delay', () => {
    expect(randomDelayMs(10, fixed(0))).toBe(0);
    expect(randomDelayMs(10, fixed(0.5))).toBe(5000);
    expect(randomDelayMs(10, fixed(0.9999))).toBe(10_000);
    expect(randomDelayMs(0, fixed(0.9999))).toBe(0);
  });
});

describe('recon_default / recon_max / recon_randomize (Salt zeromq PublishClient)', () => {
  it('without randomize: recon_default, with recon_max as the ceiling', () => {
    expect(subscribeReconnect({ recon_default: 1000, recon_max: 10000, recon_randomize: false }, fixed(0.7))).toEqual({
      interval: 1000,
      max: 10000,
    });
  });

  it('with randomize: a whole number of ms in [recon_default, recon_default + recon_max]', () => {
    const s = { recon_default: 1000, recon_max: 10000, recon_randomize: true };
    expect(subscribeReconnect(s, fixed(0)).interval).toBe(1000);
    expect(subscribeReconnect(s, fixed(0.5)).interval).toBe(6000);
    expect(subscribeReconnect(s, fixed(0.99999999)).interval).toBe(11000);
  });

  it('refuses unusable values with a typed error naming the option', () => {
    expect(() => subscribeReconnect({ recon_default: -1, recon_max: 0, recon_randomize: false }, Math.random)).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('recon_default') }),
    );
  });
});

describe('checkSignInSettings', () => {
  const good = { auth_timeout: 5, auth_tries: 7, acceptance_wait_time: 10, acceptance_wait_time_max: 0, random_reauth_delay: 10 };
  it('accepts Salt defaults', () => {
    expect(() => checkSignInSettings(good)).not.toThrow();
  });
  it.each([
    ['auth_tries', 0],
    ['auth_timeout', 0],
    ['acceptance_wait_time', -1],
    ['random_reauth_delay', Number.NaN],
  ])('refuses %s = %s', (name, value) => {
    expect(() => checkSignInSettings({ ...good, [name]: value })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining(name) }),
    );
  });
});
