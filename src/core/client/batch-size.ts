import { ClientError } from './client-errors';

/**
 * Salt's get_bnum (salt/cli/batch.py): "N" minions, or "N%" of the minions that answered the
 * ping (at least 1). The salt CLI's `-b` and salt-api's local_batch size their windows with it.
 *
 * @example
 * batchSize('25%', 10) // 2
 */
export function batchSize(spec: string, upCount: number): number {
  const text = String(spec).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct) {
    const n = (Number(pct[1]) / 100) * upCount;
    return n < 1 ? Math.ceil(n) : Math.floor(n);
  }
  if (/^\d+$/.test(text) && Number(text) > 0) return Number(text);
  throw new ClientError('BAD_BATCH', `Invalid batch data sent: ${spec}\nData must be in the form of %10, 10% or 3`);
}
