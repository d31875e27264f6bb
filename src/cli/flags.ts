import * as Flags from '@oclif/core/flags';

/** Where Salt's commands look for their configuration when -c is not given. */
export const DEFAULT_CONFIG_DIR = '/etc/salt';

/** Flags every brine command shares with Salt's. */
export const configDirFlag = Flags.string({
  char: 'c',
  description: 'Directory holding the master / minion configuration files',
  default: DEFAULT_CONFIG_DIR,
  helpValue: 'CONFIG_DIR',
});

export const logLevelFlag = Flags.string({
  char: 'l',
  description: 'Console logging level',
  options: ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'],
});

export const outFlag = Flags.string({
  description: 'Print the output with this outputter',
  options: ['nested', 'json', 'yaml', 'txt', 'raw', 'pprint', 'quiet', 'newline_values_only'],
  aliases: ['output'],
});

export const outFileFlag = Flags.string({ description: 'Write the output to this file', aliases: ['output-file'] });
export const outIndentFlag = Flags.integer({ description: 'Indentation of json/yaml output', aliases: ['output-indent'] });

/** Answered before parsing (see main.ts versionAnswer); declared so that --help lists them. */
export const versionFlags = {
  version: Flags.boolean({ description: 'Print the Salt version brine reproduces and exit' }),
  'versions-report': Flags.boolean({ char: 'V', description: "Print brine's, its dependencies' and the system's versions and exit" }),
};

/** -c and -l: what every command takes. */
export const commonFlags = {
  'config-dir': configDirFlag,
  'log-level': logLevelFlag,
  ...versionFlags,
};

/** Salt's --no-color / --force-color: without either, the nested and highstate outputters colour only on a terminal. */
export const noColorFlag = Flags.boolean({ description: 'Disable all colored output', aliases: ['no-colour'] });
export const forceColorFlag = Flags.boolean({ description: 'Force colored output', aliases: ['force-colour'] });

/** How a command that prints returns prints them. */
export const outputFlags = {
  out: outFlag,
  'out-file': outFileFlag,
  'out-indent': outIndentFlag,
  'no-color': noColorFlag,
  'force-color': forceColorFlag,
};

/** How the highstate outputter prints state runs (salt and salt-call). */
export const stateOutputFlags = {
  'state-output': Flags.string({
    description: 'Highstate output mode: full, terse, mixed, changes (and their _id forms)',
    aliases: ['state_output'],
  }),
  'state-verbose': Flags.string({ description: 'False hides states that succeeded without changes', aliases: ['state_verbose'] }),
};

/** --state-verbose's value as Salt reads it; undefined when not given. */
export function stateVerboseFlag(value: string | undefined): boolean | undefined {
  return value === undefined ? undefined : ['true', 'yes', '1', 'on'].includes(value.toLowerCase());
}

/** A command's log file: a daemon's or salt-call's over the config's log_file / log_level_logfile; salt, salt-run, salt-key only when given. */
export const logFileFlags = {
  'log-file': Flags.string({ description: 'Log file path (overrides log_file in the config)' }),
  'log-file-level': Flags.string({
    description: 'Log file logging level (overrides log_level_logfile in the config)',
    options: ['all', 'garbage', 'trace', 'debug', 'profile', 'info', 'warning', 'error', 'critical', 'quiet'],
  }),
};

/** salt-master and salt-minion: the daemon's life. */
export const daemonFlags = {
  ...commonFlags,
  ...logFileFlags,
  daemon: Flags.boolean({ char: 'd', description: 'Run in the background' }),
};

/** Salt's --no-parse: keyword arguments whose values are passed as typed, not YAML-loaded. */
export const noParseFlag = Flags.string({
  description: 'Comma-separated names of keyword arguments (name=value) not to parse as YAML',
  multiple: true,
  helpValue: 'ARG1,ARG2',
});
