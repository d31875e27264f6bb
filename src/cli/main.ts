import { resolve } from 'node:path';
import { SALT_VERSION, versionsReport } from '../plugins/api/version';
import { SALT, SALT_CALL, SALT_MASTER, SALT_MINION, type CommandSpec, type ParsedFlags } from './flag-specs';
import { quickParse } from './quick-parse';

/**
 * A command's quick start: parse `argv` with its specs and run its body, or undefined when oclif
 * must read the line (help, a usage error).
 */
function quick<S extends CommandSpec>(spec: S, run: (flags: ParsedFlags<S['flags']>, words: string[]) => Promise<void>) {
  return (argv: string[]): Promise<void> | undefined => {
    const parsed = quickParse(spec, argv);
    return parsed && run(parsed.flags, parsed.words);
  };
}

/* eslint-disable @typescript-eslint/no-require-imports */
/**
 * The commands that run without oclif when their command line is plain (see quick-parse.ts):
 * oclif's ~100 modules are about 100 ms of a salt-call's CPU. Each body is loaded only once the
 * line is parsed.
 */
const QUICK: Record<string, (argv: string[]) => Promise<void> | undefined> = {
  'salt-call': quick(SALT_CALL, (flags, words) => (require('./salt-call') as typeof import('./salt-call')).saltCallCommand(flags, words)),
  salt: quick(SALT, (flags, words) => (require('./salt') as typeof import('./salt')).saltCommand(flags, words)),
  'salt-minion': quick(SALT_MINION, (flags) => (require('./minion-runtime') as typeof import('./minion-runtime')).minionCommand(flags)),
  'salt-master': quick(SALT_MASTER, (flags) => (require('./salt-master') as typeof import('./salt-master')).masterCommand(flags)),
};

/**
 * Entry point of every bin: `salt-key -L` runs the oclif command `salt-key` with the rest of argv,
 * so each bin behaves as its own program, the way Salt users know them.
 */
export function main(commandId: string): void {
  const early = versionAnswer(commandId, process.argv.slice(2));
  if (early !== undefined) {
    process.stdout.write(early);
    return;
  }
  const quick = QUICK[commandId]?.(process.argv.slice(2));
  if (quick) {
    quick.catch((err: unknown) => (require('./errors') as typeof import('./errors')).reportAndExit(err));
    return;
  }
  // Loaded here, not at the top: `--version` answers without oclif (its ~100 modules are most of
  // the CPU of a short command). oclif's subpaths: its index loads every part of oclif (semver,
  // ux, help) on every run.
  const { run } = require('@oclif/core/run') as typeof import('@oclif/core/run');
  const { flush } = require('@oclif/core/flush') as typeof import('@oclif/core/flush');
  const { reportAndExit } = require('./errors') as typeof import('./errors');
  const root = resolve(__dirname, '..', '..', '..');
  run([commandId, ...process.argv.slice(2)], root)
    .then(() => flush())
    .catch(reportAndExit);
}
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * `--version` and `-V`/`--versions-report` answer before anything is parsed, as Salt's option
 * parser does: `salt --version` needs no target. The version is the Salt release brine
 * reproduces (what scripts compare); brine's own is in the versions report.
 */
export function versionAnswer(commandId: string, argv: readonly string[]): string | undefined {
  const words = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (words.includes('--version')) return `${commandId} ${SALT_VERSION} (Chlorine)\n`;
  if (words.includes('-V') || words.includes('--versions-report')) return versionsReport();
  return undefined;
}
