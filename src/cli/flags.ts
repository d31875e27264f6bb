import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import {
  commonSpecs,
  configDirSpec,
  daemonSpecs,
  forceColorSpec,
  logFileSpecs,
  logLevelSpec,
  noColorSpec,
  noParseSpec,
  outputSpecs,
  outSpec,
  stateOutputSpecs,
  type CommandSpec,
  type FlagSpec,
  type FlagSpecs,
  type FlagValue,
} from './flag-specs';
import type { Arg, BooleanFlag, OptionFlag } from '@oclif/core/interfaces';

export { DEFAULT_CONFIG_DIR, stateVerboseFlag } from './flag-specs';

type Char = Parameters<typeof Flags.string>[0] extends infer O ? (O extends { char?: infer C } ? C : never) : never;

/** The oclif flag of a spec, typed as the value flag-specs says it parses to. */
type OclifFlag<S extends FlagSpec> = S['type'] extends 'boolean' ? BooleanFlag<boolean> : OptionFlag<FlagValue<S>>;

/** One of flag-specs' flags as oclif declares it. */
export function oclifFlag<S extends FlagSpec>(spec: S): OclifFlag<S> {
  return toOclif(spec) as unknown as OclifFlag<S>;
}

function toOclif(spec: FlagSpec) {
  const common = {
    description: spec.description,
    ...(spec.char ? { char: spec.char as Char } : {}),
    ...(spec.aliases ? { aliases: [...spec.aliases] } : {}),
  };
  if (spec.type === 'boolean') return Flags.boolean(common);
  if (spec.type === 'integer') return Flags.integer(common);
  const options = {
    ...common,
    ...(spec.options ? { options: [...spec.options] } : {}),
    ...(spec.helpValue ? { helpValue: spec.helpValue } : {}),
  };
  if (spec.multiple) return Flags.string({ ...options, multiple: true });
  return Flags.string({ ...options, ...(spec.default !== undefined ? { default: spec.default } : {}) });
}

/** A group of flag-specs' flags as oclif declares them. */
export function oclifFlags<F extends FlagSpecs>(specs: F): { -readonly [K in keyof F]: OclifFlag<F[K]> } {
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name, toOclif(spec)])) as never;
}

/** A command's positional arguments as oclif declares them (all required). */
export function oclifArgs(spec: CommandSpec): Record<string, Arg<string>> {
  return Object.fromEntries(spec.args.map((a) => [a.name, Args.string({ description: a.description, required: true })]));
}

export const configDirFlag = oclifFlag(configDirSpec);
export const logLevelFlag = oclifFlag(logLevelSpec);
export const outFlag = oclifFlag(outSpec);
export const commonFlags = oclifFlags(commonSpecs);
export const noColorFlag = oclifFlag(noColorSpec);
export const forceColorFlag = oclifFlag(forceColorSpec);
export const outputFlags = oclifFlags(outputSpecs);
export const stateOutputFlags = oclifFlags(stateOutputSpecs);
export const logFileFlags = oclifFlags(logFileSpecs);
export const daemonFlags = oclifFlags(daemonSpecs);
export const noParseFlag = oclifFlag(noParseSpec);
