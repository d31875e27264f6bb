import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log';
import { fnmatch, pyStr } from '../pycompat';

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

  /** Whether one of the file's lines is `value` exactly (an autosign grains file). */
  hasLine(value: string): boolean {
    if (!this.path) return false;
    this.refresh(this.path);
    return this.patterns.includes(value);
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
    this.patterns = tooOpen(path, mode, this.option, this.permissive, this.log) ? [] : contentLines(path);
  }
}

/**
 * Salt's autosign by grains (`check_autosign_grains`): a minion whose `autosign_grains` sends a
 * grain named by a file in `autosign_grains_dir`, with a value that is one of that file's lines
 * (compared as Python's `str()` of the value), is accepted. Files read as SigningFile reads one
 * (permissions checked, re-read when changed).
 */
export class AutosignGrainsDir {
  private readonly files = new Map<string, SigningFile>();

  constructor(
    private readonly dir: string | undefined,
    private readonly log?: Logger,
    private readonly permissive = false,
  ) {}

  matches(grains: Record<string, unknown> | undefined): boolean {
    if (!this.dir || grains === undefined) return false;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return false;
    }
    return names.some((grain) => {
      if (!Object.prototype.hasOwnProperty.call(grains, grain)) return false;
      let file = this.files.get(grain);
      if (!file) this.files.set(grain, (file = new SigningFile(join(this.dir!, grain), 'autosign_grains_dir', this.log, this.permissive)));
      return file.hasLine(pyStr(grains[grain]));
    });
  }
}

/** Whether a signing file others (or, unless permissive, its group) may write is to be ignored, saying so. */
function tooOpen(path: string, mode: number, option: string, permissive: boolean, log?: Logger): boolean {
  const writable = mode & S_IWOTH ? 'others' : mode & S_IWGRP && !permissive ? 'its group' : undefined;
  if (writable === undefined) return false;
  log?.warning(
    `Wrong permissions for ${path} (${option}): writable by ${writable}, its content is ignored; ` +
      `chmod go-w ${path}${writable === 'its group' ? ' (or set permissive_pki_access: True)' : ''}`,
  );
  return true;
}

/** A signing file's lines, trimmed, without blanks and `#` comments. */
function contentLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

function regexMatches(pattern: string, id: string): boolean {
  try {
    return new RegExp(`^(?:${pattern})$`).test(id);
  } catch {
    return false;
  }
}
