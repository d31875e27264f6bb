import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `data` to `file` for this user only (0600), making its folder (0700) when it is missing:
 * on the first write, or again after something removed it. The folder is not checked before each
 * write: a sign-in (the master's session keys) or a job (the minion's proc records) costs one
 * write, not a mkdir and a write.
 */
export function writePrivateFile(file: string, data: string | Uint8Array): void {
  try {
    writeFileSync(file, data, { mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, data, { mode: 0o600 });
  }
}
