/**
 * The flags of brine's commands as plain data, without oclif: `flags.ts` builds oclif's flags from
 * them (for --help and the commands oclif runs), and `quick-parse.ts` reads a command line with
 * them, so that salt-call, salt, salt-minion and salt-master start without loading oclif's ~100
 * modules (about 100 ms of a salt-call's CPU, in a profile).
 */

/** Where Salt's commands look for their configuration when -c is not given. */
export const DEFAULT_CONFIG_DIR = '/etc/salt';

export interface FlagSpec {
  type: 'boolean' | 'string' | 'integer';
  description: string;
  /** The one-letter form (`-c`). */
  char?: string;
  /** Other long names (`--output` for `--out`). */
  aliases?: readonly string[];
  /** The values allowed; anything else is a usage error. */
  options?: readonly string[];
  /** The flag may be given more than once; its value is then a list. */
  multiple?: boolean;
  default?: string;
  helpValue?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** What a flag's value is once parsed: booleans are false when not given, other flags undefined unless they have a default. */
export type FlagValue<S extends FlagSpec> = S['type'] extends 'boolean'
  ? boolean
  : S['type'] extends 'integer'
    ? number | undefined
    : S extends { multiple: true }
      ? string[] | undefined
      : S extends { default: string }
        ? string
        : string | undefined;

export type ParsedFlags<F extends FlagSpecs> = { -readonly [K in keyof F]: FlagValue<F[K]> };

export interface ArgSpec {
  name: string;
  description: string;
}

/** A command's positional arguments (all required, in order) and flags. */
export interface CommandSpec {
  args: readonly ArgSpec[];
  flags: FlagSpecs;
}

const LOG_LEVELS = ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'] as const;

export const configDirSpec = {
  type: 'string',
  char: 'c',
  description: 'Directory holding the master / minion configuration files',
  default: DEFAULT_CONFIG_DIR,
  helpValue: 'CONFIG_DIR',
} as const satisfies FlagSpec;

export const logLevelSpec = {
  type: 'string',
  char: 'l',
  description: 'Console logging level',
  options: LOG_LEVELS,
} as const satisfies FlagSpec;

export const outSpec = {
  type: 'string',
  description: 'Print the output with this outputter',
  options: ['nested', 'json', 'yaml', 'txt', 'raw', 'pprint', 'quiet', 'newline_values_only'],
  aliases: ['output'],
} as const satisfies FlagSpec;

/** Answered before parsing (see main.ts versionAnswer); declared so that --help lists them. */
export const versionSpecs = {
  version: { type: 'boolean', description: 'Print the Salt version brine reproduces and exit' },
  'versions-report': { type: 'boolean', char: 'V', description: "Print brine's, its dependencies' and the system's versions and exit" },
} as const satisfies FlagSpecs;

/** -c and -l: what every command takes. */
export const commonSpecs = { 'config-dir': configDirSpec, 'log-level': logLevelSpec, ...versionSpecs } as const satisfies FlagSpecs;

/** Salt's --no-color / --force-color: without either, the nested and highstate outputters colour only on a terminal. */
export const noColorSpec = {
  type: 'boolean',
  description: 'Disable all colored output',
  aliases: ['no-colour'],
} as const satisfies FlagSpec;
export const forceColorSpec = {
  type: 'boolean',
  description: 'Force colored output',
  aliases: ['force-colour'],
} as const satisfies FlagSpec;

/** How a command that prints returns prints them. */
export const outputSpecs = {
  out: outSpec,
  'out-file': { type: 'string', description: 'Write the output to this file', aliases: ['output-file'] },
  'out-indent': { type: 'integer', description: 'Indentation of json/yaml output', aliases: ['output-indent'] },
  'no-color': noColorSpec,
  'force-color': forceColorSpec,
} as const satisfies FlagSpecs;

/** How the highstate outputter prints state runs (salt and salt-call). */
export const stateOutputSpecs = {
  'state-output': {
    type: 'string',
    description: 'Highstate output mode: full, terse, mixed, changes (and their _id forms)',
    aliases: ['state_output'],
  },
  'state-verbose': { type: 'string', description: 'False hides states that succeeded without changes', aliases: ['state_verbose'] },
} as const satisfies FlagSpecs;

/** A command's log file: a daemon's or salt-call's over the config's log_file / log_level_logfile; salt, salt-run, salt-key only when given. */
export const logFileSpecs = {
  'log-file': { type: 'string', description: 'Log file path (overrides log_file in the config)' },
  'log-file-level': {
    type: 'string',
    description: 'Log file logging level (overrides log_level_logfile in the config)',
    options: LOG_LEVELS,
  },
} as const satisfies FlagSpecs;

/** Salt's --no-parse: keyword arguments whose values are passed as typed, not YAML-loaded. */
export const noParseSpec = {
  type: 'string',
  description: 'Comma-separated names of keyword arguments (name=value) not to parse as YAML',
  multiple: true,
  helpValue: 'ARG1,ARG2',
} as const satisfies FlagSpec;

/** salt-master, salt-minion and salt-api: the daemon's life. */
export const daemonSpecs = {
  ...commonSpecs,
  ...logFileSpecs,
  daemon: { type: 'boolean', char: 'd', description: 'Run in the background' },
} as const satisfies FlagSpecs;

export const SALT_MASTER = { args: [], flags: daemonSpecs } as const satisfies CommandSpec;

export const SALT_MINION = {
  args: [],
  flags: {
    ...daemonSpecs,
    'print-id': { type: 'boolean', description: 'Print the minion id, which rule chose it and any warning, then exit' },
  },
} as const satisfies CommandSpec;

const functionArg = { name: 'function', description: 'The function to run, e.g. test.ping' } as const satisfies ArgSpec;

export const SALT_CALL = {
  args: [functionArg],
  flags: {
    ...commonSpecs,
    ...outputSpecs,
    ...logFileSpecs,
    'no-parse': noParseSpec,
    local: { type: 'boolean', description: 'Run without a master' },
    id: { type: 'string', description: 'Run as this minion id' },
    'retcode-passthrough': { type: 'boolean', description: "Exit with the function's retcode" },
    ...stateOutputSpecs,
    metadata: { type: 'boolean', description: 'Print the execution metadata (jid, fun, retcode, ...) as well as the return' },
    'set-metadata': { type: 'string', description: 'Pass metadata into Salt, used to search jobs (a YAML value)' },
    return: { type: 'string', description: 'Pass the return data to one or many returners (a,b), as well as to the master' },
  },
} as const satisfies CommandSpec;

/** salt's target types, each a flag; at most one may be given. */
export const TARGET_TYPE_FLAGS = [
  'pcre',
  'list',
  'grain',
  'grain-pcre',
  'pillar',
  'pillar-pcre',
  'ipcidr',
  'compound',
  'nodegroup',
] as const;

export const SALT = {
  args: [{ name: 'target', description: 'Minion ids (glob by default) or a target expression' }, functionArg],
  flags: {
    ...commonSpecs,
    ...outputSpecs,
    ...stateOutputSpecs,
    ...logFileSpecs,
    'no-parse': noParseSpec,
    pcre: { type: 'boolean', char: 'E', description: 'Target is a regular expression on minion ids' },
    list: { type: 'boolean', char: 'L', description: 'Target is a comma-separated list of minion ids' },
    grain: { type: 'boolean', char: 'G', description: "Target is a grain expression 'key:glob'" },
    'grain-pcre': { type: 'boolean', char: 'P', description: "Target is a grain expression 'key:regex'" },
    pillar: { type: 'boolean', char: 'I', description: "Target is a pillar expression 'key:glob'" },
    'pillar-pcre': { type: 'boolean', char: 'J', description: "Target is a pillar expression 'key:regex'" },
    ipcidr: { type: 'boolean', char: 'S', description: 'Target is an IP address or a CIDR network' },
    compound: { type: 'boolean', char: 'C', description: 'Target is a compound expression' },
    nodegroup: { type: 'boolean', char: 'N', description: "Target is a nodegroup from the master's config" },
    delimiter: { type: 'string', description: 'Delimiter of grain and pillar paths', default: ':' },
    timeout: { type: 'integer', char: 't', description: 'Seconds to wait for the minions to return' },
    static: { type: 'boolean', char: 's', description: 'Print all returns together at the end' },
    async: { type: 'boolean', description: 'Publish the job and print its jid without waiting' },
    'show-jid': { type: 'boolean', description: 'Print the jid of the job' },
    verbose: { type: 'boolean', char: 'v', description: 'Say what the command is doing' },
    return: { type: 'string', description: 'Returner to send the returns to as well' },
    metadata: { type: 'string', description: 'Pass metadata into Salt, used to search jobs (a YAML value, e.g. \'{"ticket": "OPS-1"}\')' },
    'hide-timeout': { type: 'boolean', description: 'Leave out the minions that did not return' },
    summary: { type: 'boolean', description: 'Print a summary of the returns at the end' },
    'batch-size': { type: 'string', char: 'b', description: "Run on this many minions at a time: 'N' or 'N%'" },
    subset: { type: 'integer', description: 'Run on this many random minions of the target that have the function' },
    failhard: { type: 'boolean', description: 'Stop a batch run (-b) at the first minion that fails' },
    'batch-wait': { type: 'string', description: 'Seconds to wait after a minion returns before starting the next one' },
    'batch-safe-limit': {
      type: 'integer',
      description: 'Run in batches (--batch-safe-size) when the target matches at least this many minions',
    },
    'batch-safe-size': { type: 'string', description: 'Batch size for runs that --batch-safe-limit turns into batches (default 8)' },
    'preview-target': { type: 'boolean', description: 'Print the minions the target matches, without running anything' },
  },
} as const satisfies CommandSpec;

/** --state-verbose's value as Salt reads it; undefined when not given. */
export function stateVerboseFlag(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : ['true', 'yes', '1', 'on'].includes(value.toLowerCase());
}
