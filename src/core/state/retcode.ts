import { isPlainObject, type StateResult } from './types';

/** A state run's return: results by state tag, or the compile errors. */
export type StateReturn = Record<string, StateResult> | string[];

/** Salt's exit codes of state runs (salt.defaults.exitcodes). */
export const EX_STATE_COMPILER_ERROR = 1;
export const EX_STATE_FAILURE = 2;

/** Salt's _set_retcode: compile errors 1, any failed state 2, else 0. */
export function stateRetcode(ret: StateReturn): number {
  if (Array.isArray(ret)) return EX_STATE_COMPILER_ERROR;
  for (const r of Object.values(ret)) {
    if (isPlainObject(r) && r.result === false) return EX_STATE_FAILURE;
  }
  return 0;
}
