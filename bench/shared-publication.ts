/**
 * One opening of each publication for all the simulated minions of a simulator process.
 *
 * Every minion subscribed to a master receives the same publication bytes, sealed with the same
 * publish key and signed by the same master key. A real minion checks and opens them on its own
 * machine; the bench's 2,000 minions of one process would repeat that work 2,000 times on the two
 * cores the master runs on (checking the signature was a sixth of the simulators' CPU a return,
 * docs/scaling.md). So the simulator opens a publication once, with the real `openPublication`,
 * and hands each minion that receives the same bytes under the same keys the same job: what its
 * own opening would have given. Bytes it has not seen, or other keys, are opened as a real minion
 * opens them, failures included (a minion whose publish key is stale still signs in again).
 *
 * The master's work is untouched, as with the simulators' shared key pairs: each minion still
 * receives the publication on its own connection, checks the target, runs the job and seals and
 * sends its own return. `--own-publication-checks` turns this off, to measure the simulators as
 * real minions (bench/run.ts).
 */
import type { KeyObject } from 'node:crypto';
import { openPublication } from '../src/core/channel';
import type { Crypticle } from '../src/core/crypto/crypticle';
import type { JobLoad } from '../src/core/protocol/loads';
import type { PublicationOpener } from '../src/core/minion/channel-client';

interface Opened {
  payload: Buffer;
  aesKey: string;
  masterKey: KeyObject | null;
  job: JobLoad;
}

/** Frozen so that no minion's job can change what the others run. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Each minion holds its own KeyObject of the master's key: the same key, not the same object. */
function sameKey(a: KeyObject | null, b: KeyObject | null): boolean {
  return a === b || (a !== null && b !== null && a.equals(b));
}

/** An opener shared by the minions of one process: the last few publications it opened, reused. */
export function sharedPublicationOpener(keep = 4): PublicationOpener & { opened: () => number; reused: () => number } {
  const recent: Opened[] = [];
  let opened = 0;
  let reused = 0;
  const open = (payload: Buffer, aes: Crypticle, masterKey: KeyObject | null): JobLoad => {
    const aesKey = aes.keyString();
    for (const o of recent) {
      if (o.aesKey === aesKey && sameKey(o.masterKey, masterKey) && o.payload.equals(payload)) {
        reused++;
        return o.job;
      }
    }
    const job = deepFreeze(openPublication(payload, aes, masterKey));
    opened++;
    recent.unshift({ payload, aesKey, masterKey, job });
    if (recent.length > keep) recent.pop();
    return job;
  };
  return Object.assign(open, { opened: () => opened, reused: () => reused });
}
