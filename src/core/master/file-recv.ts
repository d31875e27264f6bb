/**
 * The master's `_file_recv` (Salt's AESFuncs._file_recv): one chunk of a file a minion pushes with
 * `cp.push`, written under `<cachedir>/minions/<id>/files/<path>`. Refused (False) unless
 * `file_recv: True`, beyond `file_recv_max_size` MiB, or for a path that would leave that folder.
 * The minion's id and `tok` were checked by the aes request layer already.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname, isAbsolute, normalize, resolve, sep } from 'node:path';
import type { Logger } from '../log';

export interface FileRecvOptions {
  cachedir: string;
  file_recv?: boolean;
  /** MiB (Salt's default 100). */
  file_recv_max_size?: number;
}

type Load = Record<string, unknown>;

export function receiveFile(options: FileRecvOptions, id: string, load: Load, log?: Logger): boolean {
  if (!('path' in load) || !('loc' in load) || !Array.isArray(load.path)) return false;
  if (options.file_recv !== true) return false;
  const loc = load.loc;
  if (typeof loc !== 'number' || !Number.isSafeInteger(loc) || loc < 0) {
    log?.error('Invalid file pointer: load[loc] < 0');
    return false;
  }
  const data = Buffer.isBuffer(load.data) ? load.data : typeof load.data === 'string' ? Buffer.from(load.data) : undefined;
  if (!data) return false;
  const maxBytes = 1024 * 1024 * (options.file_recv_max_size ?? 100);
  if (data.length + loc > maxBytes) {
    log?.error(
      `file_recv_max_size limit of ${maxBytes} MB exceeded! ${JSON.stringify(load.path)} will be truncated. To successfully push this file, adjust file_recv_max_size to an integer (in MB) large enough to accommodate it.`,
    );
    return false;
  }
  const parts = load.path.map(String);
  if (parts.includes('..') || parts.some((p) => p.includes('\0'))) return false;
  const rel = normalize(parts.join(sep));
  if (isAbsolute(rel) || rel === '.' || rel.startsWith('..')) return false;
  const base = resolve(options.cachedir, 'minions', id, 'files');
  const target = resolve(base, rel);
  if (!target.startsWith(base + sep)) {
    log?.warning(`Attempt to write received file outside of master cache directory! Requested path: ${target}. Access denied.`);
    return false;
  }
  mkdirSync(dirname(target), { recursive: true });
  // As Salt: the first chunk (loc 0) starts the file again, later ones land at their offset.
  const fd = openSync(target, loc !== 0 && existsSync(target) ? 'r+' : 'w');
  try {
    writeSync(fd, data, 0, data.length, loc);
  } finally {
    closeSync(fd);
  }
  return true;
}
