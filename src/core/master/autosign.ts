import { readFileSync, statSync } from 'node:fs';
import { fnmatch } from '../pycompat';

/**
 * Salt's autosign_file: one minion-id pattern per line (`#` comments), matched as Salt's
 * expr_match does: the exact id, a glob, or a regular expression over the whole id. The file is
 * re-read only when it changes.
 */
export class AutosignFile {
  private mtimeMs = -1;
  private patterns: string[] = [];

  constructor(private readonly path: string | undefined) {}

  matches(id: string): boolean {
    if (!this.path) return false;
    this.refresh(this.path);
    return this.patterns.some((p) => p === id || fnmatch(p, id) || regexMatches(p, id));
  }

  private refresh(path: string): void {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      this.patterns = [];
      this.mtimeMs = -1;
      return;
    }
    if (mtimeMs === this.mtimeMs) return;
    this.mtimeMs = mtimeMs;
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
