/**
 * The minion's `<cachedir>/proc` directory, as Salt keeps it (salt/minion.py writes one msgpack
 * file per running job, named by its jid; salt/utils/minion.py reads them): how processes on one
 * machine see each other's jobs. The minion daemon and every `salt-call` write their running jobs
 * here, so a `salt-call state.apply` sees the daemon's state run (and the daemon a salt-call's)
 * and Salt's one-state-run-at-a-time rule holds across processes.
 */
import { readFileSync, readdirSync, rmSync, unlinkSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { decode, encode } from '../protocol/msgpack';
import { writePrivateFile } from '../private-file';

/** A job record: `pid` and `jid` at least (Salt's `{pid, ...publication}`). */
export type ProcRecord = Record<string, unknown> & { pid: number; jid: string };

/** How often a wait for another process's job checks that process is alive (it may die without removing its file). */
const LIVENESS_CHECK_MS = 1000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Salt's _check_cmdline: on Linux the pid must still be a salt process (its command line names
 * salt), so a pid reused by something else after a crash does not count as a running job.
 */
function isSaltProcess(pid: number): boolean {
  if (process.platform !== 'linux') return true;
  try {
    return readFileSync(`/proc/${pid}/cmdline`).includes('salt');
  } catch (err) {
    // No /proc at all (a container without it): trust the pid, as Salt does.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' && !existsDir('/proc');
  }
}

function existsDir(path: string): boolean {
  try {
    readdirSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * How long a job runs before its record is written (see PluginRuntime.run): a job that ends sooner
 * (test.ping, most calls) is never seen by the other processes, as if it had started that much
 * later, and costs no file (creating and unlinking one was a fifth of a quick job's CPU).
 */
export const PROC_RECORD_DELAY_MS = 100;

/**
 * Whether a job's record is written before it starts: a state run, since another process's state
 * run refuses to start (or queues) while one is recorded (Salt's _prior_running_states).
 */
export function recordAtOnce(fun: unknown): boolean {
  return String(fun).startsWith('state.');
}

/** A jid usable as a file name in the directory (a publication's jid is not trusted to be one). */
/** A jid that can name a file or folder of its own (no separators, not `.` or `..`). */
export function safeName(jid: string): boolean {
  return /^[\w.-]{1,100}$/.test(jid) && jid !== '.' && jid !== '..';
}

export class ProcDir {
  constructor(readonly dir: string) {}

  /** Records a job this process runs (Salt writes `{pid, ...load}` with msgpack). */
  write(record: ProcRecord): void {
    if (!safeName(record.jid)) return;
    writePrivateFile(this.path(record.jid), encode(record));
  }

  remove(jid: string): void {
    if (!safeName(jid)) return;
    // unlink alone: rmSync stats the path first and walks it as a tree (a third of a job's file work).
    try {
      unlinkSync(this.path(jid));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }

  /**
   * The jobs other live processes run, as Salt's salt.utils.minion.running reads them: a file
   * that is empty, unreadable as a record, or names a process that ended (or is not salt any
   * more) is removed, as Salt removes it. This process's own records are left out (it knows its
   * jobs itself).
   */
  others(): ProcRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const jobs: ProcRecord[] = [];
    for (const name of names) {
      const record = this.read(name);
      if (record && record.pid !== process.pid) jobs.push(record);
    }
    return jobs;
  }

  /** The record of file `name` when it names a live salt process; a stale file is removed. */
  private read(name: string): ProcRecord | undefined {
    if (name.startsWith('.') || name.includes('/')) return undefined;
    const path = join(this.dir, name);
    let record: unknown;
    try {
      const buf = readFileSync(path);
      if (buf.length === 0) {
        rmSync(path, { force: true });
        return undefined;
      }
      record = decode(buf);
    } catch {
      // Being written or removed right now, or not a record at all: not a job.
      return undefined;
    }
    if (!record || typeof record !== 'object' || Array.isArray(record)) return undefined;
    const r = record as Record<string, unknown>;
    const pid = Number(r.pid);
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    if (pid !== process.pid && !(alive(pid) && isSaltProcess(pid))) {
      rmSync(path, { force: true });
      return undefined;
    }
    return { ...r, pid, jid: String(r.jid ?? name) } as ProcRecord;
  }

  /**
   * Resolves once no other process runs job `jid`: its file is removed, or its process ended.
   * Follows the directory's changes, and checks the process is alive now and then for one that
   * died without removing its file. `signal` ends the wait (rejects with its reason).
   */
  async gone(jid: string, signal?: AbortSignal): Promise<void> {
    const running = (): boolean => this.others().some((r) => r.jid === jid);
    if (!running()) return;
    let watcher: FSWatcher | undefined;
    let timer: NodeJS.Timeout | undefined;
    let onAbort = (): void => undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (!running()) resolve();
        };
        try {
          watcher = watch(this.dir, check);
          watcher.on('error', () => undefined);
        } catch {
          // The directory went away with the file: the job is over.
          resolve();
          return;
        }
        timer = setInterval(check, LIVENESS_CHECK_MS);
        onAbort = () => reject(signal!.reason instanceof Error ? signal!.reason : new Error('wait aborted'));
        if (signal?.aborted) onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        // The file may have gone between the first look and the watch.
        check();
      });
    } finally {
      watcher?.close();
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  private path(jid: string): string {
    return join(this.dir, jid);
  }
}
