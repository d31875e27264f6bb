/**
 * Salt's minion-side job cache (`cache_jobs: True`): each return the minion sends its master is
 * also written to `<cachedir>/minion_jobs/<jid>/return.p`, msgpack of the return as Salt's
 * salt.utils.minion.cache_jobs writes it, and `saltutil.find_cached_job <jid>` reads it back.
 * A salt-call's return (jid `req`) is cached under a new jid, as Salt does.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { JidFactory } from '../protocol/jid';
import { decode, encode } from '../protocol/msgpack';
import { writePrivateFile } from '../private-file';
import { safeName } from './proc-dir';

const jids = new JidFactory();

/** The folder of a job's cached return. */
export function cachedJobDir(cachedir: string, jid: string): string {
  return join(cachedir, 'minion_jobs', jid);
}

/**
 * Writes the return of job `ret.jid` (`{success, return, retcode, [out], jid, fun, fun_args, user,
 * [metadata]}`, Salt's order). Returns the jid it was cached under.
 */
export function cacheJobReturn(cachedir: string, ret: Record<string, unknown> & { jid: string }): string {
  const jid = ret.jid === 'req' ? jids.next() : ret.jid;
  if (!safeName(jid)) throw new Error(`cannot cache the return of job '${jid}': not a jid`);
  writePrivateFile(join(cachedJobDir(cachedir, jid), 'return.p'), encode(jid === ret.jid ? ret : { ...ret, jid }));
  return jid;
}

/**
 * Salt's saltutil.find_cached_job: the cached return of `jid` (a dict), null when the file holds
 * something else, or Salt's text when there is no such job in the cache.
 */
export function findCachedJob(cachedir: string, jid: string, cacheJobs: boolean): Record<string, unknown> | null | string {
  const dir = cachedJobDir(cachedir, jid);
  let isDir = false;
  try {
    isDir = safeName(jid) && statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    return cacheJobs
      ? `Local jobs cache directory ${dir} not found`
      : 'Local jobs cache directory not found; you may need to enable cache_jobs on this minion';
  }
  let buf: Buffer;
  try {
    buf = readFileSync(join(dir, 'return.p'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // the folder without its return
    throw err;
  }
  if (buf.length === 0) return null;
  let data: unknown;
  try {
    data = decode(buf);
  } catch {
    return null;
  }
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : null;
}
