/**
 * `unless`, `onlyif` and `creates`, shared by every state (Salt's `_run_check`): a state whose
 * check says "skip" does not run and returns result True with the reason.
 */
import { existsSync } from 'node:fs';
import type { LowChunk } from './types';

function commands(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  return (Array.isArray(v) ? v : [v]).map((c) => String(c));
}

/** The skip comment, or null when the state should run. */
export async function runCheck(low: LowChunk, shell: (cmd: string, low: LowChunk) => Promise<number>): Promise<string | null> {
  if ('onlyif' in low) {
    const cmds = commands(low.onlyif);
    if (low.onlyif === false) return 'onlyif condition is false';
    for (const cmd of cmds) {
      if (typeof low.onlyif === 'boolean') break;
      if ((await shell(cmd, low)) !== 0) return 'onlyif condition is false';
    }
  }
  if ('unless' in low) {
    const cmds = commands(low.unless);
    if (low.unless === true) return 'unless condition is true';
    if (typeof low.unless !== 'boolean' && cmds.length > 0) {
      let all = true;
      for (const cmd of cmds) if ((await shell(cmd, low)) !== 0) all = false;
      if (all) return 'unless condition is true';
    }
  }
  if ('creates' in low) {
    const paths = commands(low.creates);
    if (paths.length > 0 && paths.every((p) => existsSync(p)))
      return paths.length === 1 ? `${paths[0]} exists` : 'All files in creates exist';
  }
  return null;
}
