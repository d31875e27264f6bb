/**
 * Minion id validation. A minion id names a file under pki_dir (minions/<id>, minions_pre/<id>, ...),
 * so like Salt's `valid_id` it must not be able to name a path outside those directories.
 */
import { BrineError } from '../errors';

// Control characters (C0, DEL, C1) would garble listings and logs; NUL would truncate paths.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `id` cannot be a minion id, or undefined when it can. */
export function minionIdProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return 'a minion id must be a string';
  if (id === '') return 'a minion id must not be empty';
  if (id === '.' || id === '..') return `minion id '${id}' would name a directory`;
  if (id.includes('/') || id.includes('\\')) return `minion id ${JSON.stringify(id)} contains a path separator`;
  if (CONTROL.test(id)) return `minion id ${JSON.stringify(id)} contains a control character`;
  return undefined;
}

export function isValidMinionId(id: unknown): id is string {
  return minionIdProblem(id) === undefined;
}

/** Throws `BrineError` code `BAD_ID` naming what is wrong with `id`. */
export function assertMinionId(id: unknown): asserts id is string {
  const problem = minionIdProblem(id);
  if (problem !== undefined) {
    throw new BrineError('BAD_ID', problem, {
      hint: 'minion ids may not be empty, ".", "..", or contain "/", "\\", NUL or control characters',
    });
  }
}
