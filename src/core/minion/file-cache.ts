import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProtocolError } from '../errors';

/** The master's file server as the minion reaches it (FileClient implements it). */
export interface RemoteFiles {
  /** Paths relative to the file roots, sorted. */
  list(saltenv: string, prefix: string): Promise<string[]>;
  /** Write the file's bytes to `dest`. False when the master has no such file. */
  fetch(saltenv: string, path: string, dest: string): Promise<boolean>;
  /** `_file_hash`: the master's digest, null when it has no such file. Without it every use downloads. */
  hash?(saltenv: string, path: string): Promise<{ hsum: string; hash_type: string } | null>;
  /** `_file_envs`: the master's saltenvs. */
  envs?(): Promise<string[]>;
}

/** A `salt://` path as the file server takes it: no leading slash, no `..` step, no NUL. */
export function cleanSaltPath(path: string): string | null {
  const clean = path.replace(/^\/+/, '');
  if (clean === '' || clean.includes('\0') || clean.split('/').includes('..')) return null;
  return clean;
}

async function digestOf(path: string, hashType: string): Promise<string | null> {
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch {
    return null;
  }
  try {
    return createHash(hashType).update(data).digest('hex');
  } catch (cause) {
    throw new ProtocolError('BAD_LOAD', `the master hashes files with ${JSON.stringify(hashType)}, which this minion cannot compute`, {
      cause,
    });
  }
}

/**
 * Salt's minion file cache (`cachedir/files/<saltenv>/<path>`, `salt.fileclient.cache_file`): a
 * `salt://` file is downloaded only when the cached copy is missing or its digest differs from
 * the master's `_file_hash`, so an unchanged state tree costs one small request per file.
 *
 * @example
 * const cache = new FileCache(fileClient, '/var/cache/salt/minion');
 * await cache.cache('base', 'web/nginx.conf'); // '/var/cache/salt/minion/files/base/web/nginx.conf'
 */
export class FileCache {
  constructor(
    readonly files: RemoteFiles,
    private readonly cachedir: string,
  ) {}

  /** Where `path` of `saltenv` is cached. */
  root(saltenv: string): string {
    return join(this.cachedir, 'files', saltenv);
  }

  /** The local copy of `path`, refreshed when the master's changed; null when the master has none. */
  async cache(saltenv: string, path: string): Promise<string | null> {
    const clean = cleanSaltPath(path);
    if (clean === null) return null;
    const dest = join(this.root(saltenv), ...clean.split('/'));
    if (this.files.hash) {
      const remote = await this.files.hash(saltenv, clean);
      if (remote === null) return null;
      if ((await digestOf(dest, remote.hash_type)) === remote.hsum) return dest;
    }
    return (await this.files.fetch(saltenv, clean, dest)) ? dest : null;
  }
}
