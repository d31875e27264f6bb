/**
 * When a minion signs in again, and how long it waits: Salt 3007's rules as pure functions of the
 * settings and a random source, so that they can be tested without timers. Its other random waits
 * are here too: `random_startup_delay` (the same whole seconds as random_reauth_delay, before it
 * first signs in) and `return_retry_timer` with `return_retry_timer_max` (below).
 *
 * - One sign-in round sends `_auth` up to `auth_tries` times, each waiting for the reply
 *   (Salt: `channel.send(tries=auth_tries, timeout=auth_timeout)`). brine lets each further try
 *   wait twice as long (capped at 60 s) and pauses a random part of auth_timeout before resending,
 *   so that a thousand minions that timed out together do not resend together to a master that is
 *   still working through their first requests.
 * - After a round with no answer, or while the key is pending, the minion waits
 *   `acceptance_wait_time`; when `acceptance_wait_time_max` is set, the wait grows by
 *   acceptance_wait_time after each round up to that max (Salt's MinionManager; Salt's AsyncAuth
 *   doubles instead and can overshoot the max, which its docs do not describe).
 * - `random_reauth_delay`: in Salt 3007 the random wait before a minion comes back after losing
 *   its master (its docs: "when the master key changes"). brine uses it when the publish
 *   connection comes back after a drop, i.e. the master restarted and so has a new publish key:
 *   minions sign in again spread over that many seconds instead of all on the next job.
 * - `recon_randomize`: the subscription's reconnect interval is a random whole number of ms in
 *   [recon_default, recon_default + recon_max], and recon_max is the backoff ceiling (Salt's
 *   zeromq PublishClient).
 */
import { ConfigError } from '../errors';

/** A random number in [0, 1), as Math.random. */
export type RandomSource = () => number;

/** The longest a single `_auth` try waits for its reply. */
export const MAX_AUTH_TRY_MS = 60_000;

export interface SignInSettings {
  auth_timeout: number;
  auth_tries: number;
  acceptance_wait_time: number;
  acceptance_wait_time_max: number;
  random_reauth_delay: number;
}

export interface ReconnectSettings {
  recon_default: number;
  recon_max: number;
  recon_randomize: boolean;
}

function check(name: string, value: number, min: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new ConfigError('BAD_OPTION', `minion option ${name} must be a number >= ${min}, not ${JSON.stringify(value)}`);
  }
}

/** Throws a ConfigError naming the first unusable option. */
export function checkSignInSettings(s: SignInSettings): void {
  check('auth_timeout', s.auth_timeout, 0.001);
  check('auth_tries', s.auth_tries, 1);
  check('acceptance_wait_time', s.acceptance_wait_time, 0);
  check('acceptance_wait_time_max', s.acceptance_wait_time_max, 0);
  check('random_reauth_delay', s.random_reauth_delay, 0);
}

/** How long try `attempt` (1-based) of one round waits: auth_timeout, doubling, at most 60 s. */
export function authTryTimeoutMs(authTimeoutS: number, attempt: number): number {
  const base = authTimeoutS * 1000;
  return Math.round(Math.min(base * 2 ** Math.max(0, attempt - 1), Math.max(base, MAX_AUTH_TRY_MS)));
}

/** The pause before resending a timed-out `_auth`: a random part of auth_timeout. */
export function resendPauseMs(authTimeoutS: number, random: RandomSource): number {
  return Math.floor(random() * authTimeoutS * 1000);
}

/** The acceptance wait after `current` seconds: grows by `base` up to `max` when max > 0. */
export function nextAcceptanceWait(current: number, base: number, max: number): number {
  if (max <= 0 || current >= max) return current;
  return Math.min(current + base, max);
}

/** random_reauth_delay and random_startup_delay: a whole number of seconds in [0, delay] (Salt's randint), in ms. */
export function randomDelayMs(delayS: number, random: RandomSource): number {
  return Math.floor(random() * (Math.floor(delayS) + 1)) * 1000;
}

/**
 * How long a return waits for the master's answer before it is sent again, in seconds: Salt's
 * `_return_retry_timer`, a whole number in [return_retry_timer, return_retry_timer_max] (5 to 10 s
 * by default, so that the returns a busy master did not answer in time come back spread out), or
 * return_retry_timer alone when the max is 0. A max below the timer is Salt's error case: the
 * timer alone.
 */
export function returnRetryTimerS(timerS: number, maxS: number, random: RandomSource): number {
  if (!maxS || maxS < timerS) return timerS;
  const low = Math.ceil(timerS);
  const high = Math.floor(maxS);
  return high < low ? timerS : low + Math.floor(random() * (high - low + 1));
}

/** The subscription's reconnect interval and ceiling in ms (Salt's recon_* options). */
export function subscribeReconnect(s: ReconnectSettings, random: RandomSource): { interval: number; max: number } {
  check('recon_default', s.recon_default, 0);
  check('recon_max', s.recon_max, 0);
  const interval = s.recon_randomize ? s.recon_default + Math.floor(random() * (s.recon_max + 1)) : s.recon_default;
  return { interval, max: s.recon_max };
}
