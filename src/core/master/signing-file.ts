import { readFileSync, statSync } from 'node:fs';
import type { Logger } from '../log';
import { fnmatch } from '../pycompat';

/** Bits of st_mode: writable by the group, by others. */
const S_IWGRP = 0o020;
const S_IWOTH = 0o002;

/**
 * Salt's signing files (`check_signing_file` in salt/daemons/masterapi.py): `autosign_file` (new
 * keys of matching ids are accepted) and `autoreject_file` (rejected). One minion-id pattern per
 * line (`#` comments), matched as Salt's expr_match does: the exact id, a glob, or a regular
 * expression over the whole id. The file is re-read only when it changes.
 *
 * As Salt's `check_permissions`, a file anyone may write is ignored (whoever writes an autosign
 * file has their keys accepted), and so is one its group may write unless `permissive_pki_access`
 * is set; each such file is reported once for every change to it.
 */
export class SigningFile {
  private mtimeMs = -1;
  private patterns: string[] = [];

  /**
   * `option`: the option naming it, for the warning; `log`: where an ignored file is reported;
   * `permissive`: permissive_pki_access.
   */
  constructor(
    private readonly path: string | undefined,
    private readonly option = 'autosign_file',
    private readonly log?: Logger,
    private readonly permissive = false,
  ) {}

  matches(id: string): boolean {
    if (!this.path) return false;
    this.refresh(this.path);
    return this.patterns.some((p) => p === id || fnmatch(p, id) || regexMatches(p, id));
  }

  private refresh(path: string): void {
    let mode: number;
    let mtimeMs: number;
    try {
      ({ mode, mtimeMs } = statSync(path));
    } catch {
      this.patterns = [];
      this.mtimeMs = -1;
      return;
    }
    if (mtimeMs === this.mtimeMs) return;
    this.mtimeMs = mtimeMs;
    const writable = mode & S_IWOTH ? 'others' : mode & S_IWGRP && !this.permissive ? 'its group' : undefined;
    if (writable !== undefined) {
      this.log?.warning(
        `Wrong permissions for ${path} (${this.option}): writable by ${writable}, its content is ignored; ` +
          `chmod go-w ${path}${writable === 'its group' ? ' (or set permissive_pki_access: True)' : ''}`,
      );
      this.patterns = [];
      return;
    }
    this.patterns = readFileSync(path, 'utf8')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
  }
}

function regexMatches(pattern: string, id: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(id);
  } catch {
    return false;
  }
}
