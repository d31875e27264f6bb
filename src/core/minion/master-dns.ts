/**
 * Salt's resolve_dns at a minion's start (salt/minion.py): a master given by a name that does not
 * resolve is looked up again every `retry_dns` seconds, with Salt's error line each time, up to
 * `retry_dns_count` times (null: for ever); then the minion gives up with Salt's text. A machine
 * whose DNS comes up after the minion (a boot, a VPN) thus waits quietly where it would otherwise
 * spend sign-in rounds on a name that cannot be reached.
 *
 * Where brine differs: with `retry_dns: 0` Salt's minion connects to 127.0.0.1 instead; brine
 * keeps the name (its connections resolve it each time they are made) and says so.
 */
import { isIP } from 'node:net';
import { BrineError } from '../errors';
import type { Logger } from '../log';

/** The master's name resolved to nothing for `retry_dns_count` tries. */
export class MasterUnresolvableError extends BrineError<'MASTER_UNRESOLVABLE'> {}

export interface MasterDnsSettings {
  master: string;
  retry_dns?: number;
  retry_dns_count?: number | null;
}

/**
 * Resolves when the master's name resolves (or is an address); throws MasterUnresolvableError when
 * `retry_dns_count` lookups failed. `pause` is the minion's own (cut short by its stop; `stopped`
 * then tells the loop to end).
 */
export async function waitForMasterDns(
  s: MasterDnsSettings,
  lookup: (host: string) => Promise<unknown>,
  pause: (ms: number) => Promise<void>,
  stopped: () => boolean,
  log: Pick<Logger, 'error' | 'warning'>,
): Promise<void> {
  const host = s.master;
  if (isIP(host) !== 0 || host === '') return;
  const resolves = () =>
    lookup(host).then(
      () => true,
      () => false,
    );
  if (await resolves()) return;
  const retry = Number(s.retry_dns ?? 30);
  if (!(retry > 0)) {
    log.warning(
      `Master hostname: '${host}' not found; retry_dns is 0, so this minion signs in to that name as it is ` +
        '(Salt would connect to 127.0.0.1)',
    );
    return;
  }
  let left = s.retry_dns_count ?? null;
  while (!stopped()) {
    if (left !== null) {
      if (left <= 0) {
        throw new MasterUnresolvableError(
          'MASTER_UNRESOLVABLE',
          `Master address: '${host}' could not be resolved. Invalid or unresolveable address. Set 'master' value in minion config.`,
          { hint: `no lookup of '${host}' answered in ${s.retry_dns_count} tries ${retry} s apart (retry_dns, retry_dns_count)` },
        );
      }
      left--;
    }
    log.error(`Master hostname: '${host}' not found or not responsive. Retrying in ${retry} seconds`);
    await pause(retry * 1000);
    if (stopped() || (await resolves())) return;
  }
}
