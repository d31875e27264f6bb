/**
 * How close this process is to its open files limit, for the master's ports.
 *
 * A listening port out of file descriptors fails without a word: libuv accepts each new
 * connection on a descriptor it kept in reserve and closes it at once (its "EMFILE trick", so that
 * the listener does not spin), Node is never told, and every minion's connect ends in a reset it
 * retries for ever. At 10,000 minions that is the first limit a master meets (each minion holds
 * one descriptor in the request port's process and one in the publish port's). So the port asks
 * here, as connections arrive, and warns while there is still room.
 *
 * Linux only (/proc/self): elsewhere nothing is known and nothing is said.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** Warn once this share of the limit is in use. */
const WARN_SHARE = 0.9;
/** The limit is read again at most this often (prlimit and systemd can change it at run time). */
const LIMIT_EVERY_MS = 1000;
/** The descriptors in use are counted (a directory read of them all) at most this often. */
const COUNT_EVERY_MS = 10_000;
/** After a warning, the next at most this often. */
const WARN_EVERY_MS = 60_000;

/** The soft limit on open files, from /proc/self/limits; undefined where unknown or unlimited. */
export function openFilesLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'latin1'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Descriptors this process has open, from /proc/self/fd; undefined where unknown. */
export function openFilesInUse(): number | undefined {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return undefined;
  }
}

export interface OpenFilesSource {
  limit(): number | undefined;
  inUse(): number | undefined;
  now(): number;
}

const PROC: OpenFilesSource = { limit: openFilesLimit, inUse: openFilesInUse, now: Date.now };

/**
 * Told of each new connection with the number its port holds; calls `warn(inUse, limit)` when
 * 90 % of the limit is in use, then at most once a minute while it stays so. Between counts of
 * the descriptors it estimates them as the port's connections plus the others last counted, so a
 * port that gains thousands of connections does not read /proc for each.
 */
export class OpenFilesWatch {
  private limit?: number;
  private limitAt = -Infinity;
  /** Descriptors in use other than the port's connections, when last counted. */
  private others = 0;
  private countedAt = -Infinity;
  private warnedAt = -Infinity;

  constructor(
    private readonly warn: (inUse: number, limit: number) => void,
    private readonly source: OpenFilesSource = PROC,
  ) {}

  connected(connections: number): void {
    const now = this.source.now();
    if (now - this.limitAt >= LIMIT_EVERY_MS) {
      this.limit = this.source.limit();
      this.limitAt = now;
    }
    const limit = this.limit;
    if (limit === undefined) return;
    const threshold = Math.floor(limit * WARN_SHARE);
    if (connections + this.others < threshold && now - this.countedAt < COUNT_EVERY_MS) return;
    if (now - this.countedAt >= COUNT_EVERY_MS) {
      const inUse = this.source.inUse();
      if (inUse === undefined) return;
      this.others = Math.max(0, inUse - connections);
      this.countedAt = now;
    }
    const inUse = connections + this.others;
    if (inUse < threshold || now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.warn(inUse, limit);
  }
}
