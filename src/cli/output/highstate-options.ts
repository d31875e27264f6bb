/**
 * The options of Salt's highstate outputter, apart from the outputter (./highstate.ts): the `salt`
 * CLI reads them for every job and loads the outputter only for a state run's returns.
 */
import type { Colors } from './colors';

export interface HighstateOptions {
  /** Salt's state_output (default full). */
  stateOutput?: string;
  /** Salt's state_verbose (default true): false hides results True without changes. */
  stateVerbose?: boolean;
  /** Salt's state_output_diff: hide results True without changes (like verbose false). */
  stateOutputDiff?: boolean;
  /** Salt's state_output_profile (default true): Started/Duration lines. */
  stateOutputProfile?: boolean;
  /** Salt's colours (default none): green clean, cyan changed, red failed, light yellow not run (test). */
  colors?: Colors;
}

function truthy(v: unknown): boolean {
  return typeof v === 'string' ? ['true', 'yes', '1', 'on'].includes(v.toLowerCase()) : Boolean(v);
}

/**
 * The highstate options of a run: command-line flags (`--state-output`, `--state-verbose`) over
 * the config's `state_output` / `state_verbose` / `state_output_diff` (minion config for
 * salt-call, master config for salt).
 */
export function highstateOptionsOf(
  config: Record<string, unknown>,
  flags: { stateOutput?: string; stateVerbose?: boolean },
): HighstateOptions {
  return {
    stateOutput: flags.stateOutput ?? (typeof config.state_output === 'string' ? config.state_output : undefined),
    stateVerbose: flags.stateVerbose ?? (config.state_verbose === undefined ? true : truthy(config.state_verbose)),
    stateOutputDiff: truthy(config.state_output_diff),
  };
}
