import { MasterError } from './master-errors';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BrineError } from '../errors';

/** Salt's file name for the master's root key, in cachedir. */
export const ROOT_KEY_FILE = '.root_key';

export function rootKeyPath(cachedir: string): string {
  return join(cachedir, ROOT_KEY_FILE);
}

/**
 * The master writes a fresh root key at every start, readable only by its own user. The `salt`
 * CLI proves it may publish by sending it back, as Salt's CLI does.
 */
export function writeRootKey(cachedir: string): string {
  // Web Crypto's global, not node:crypto: the CLI reads this file's readRootKey and loads no crypto.
  const key = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(56))).toString('base64');
  const path = rootKeyPath(cachedir);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, key, { mode: 0o400, flag: 'w' });
  chmodSync(path, 0o400);
  return key;
}

/** Reads the root key for the CLI; a missing or unreadable file is one clear error. */
export function readRootKey(cachedir: string): string {
  const path = rootKeyPath(cachedir);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' ? 'permission denied' : code === 'ENOENT' ? 'no such file' : String(code ?? err);
    throw new MasterError('NO_ROOT_KEY', `cannot read the master's root key ${path} (${why})`, {
      cause: err,
      hint:
        code === 'EACCES'
          ? 'run this command as the user that runs salt-master'
          : 'is salt-master running with this configuration? (-c CONFIG_DIR)',
    });
  }
}
