/** Salt's log levels (salt/_logging: LOG_LEVELS) with Python logging's numbers. */
import { ConfigError } from '../errors';

export const LEVELS = {
  all: 0,
  garbage: 1,
  trace: 5,
  debug: 10,
  profile: 15,
  info: 20,
  warning: 30,
  error: 40,
  critical: 50,
  quiet: 1000,
} as const;

export type LevelName = keyof typeof LEVELS;

export function isLevelName(name: string): name is LevelName {
  return Object.prototype.hasOwnProperty.call(LEVELS, name);
}

/** The level number for a name as given on the command line (`-l DEBUG` works too). */
export function levelNumber(name: string): number {
  const key = name.toLowerCase();
  if (!isLevelName(key)) {
    throw new ConfigError('BAD_LOG_LEVEL', `unknown log level '${name}'`, { hint: `use one of: ${Object.keys(LEVELS).join(', ')}` });
  }
  return LEVELS[key];
}
