import { resolve } from 'node:path';
import { SALT_VERSION, versionsReport } from '../plugins/api/version';

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
  // Loaded here, not at the top: `--version` answers without oclif (its ~100 modules are most of
  // the CPU of a short command). oclif's subpaths: its index loads every part of oclif (semver,
  // ux, help) on every run.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { run } = require('@oclif/core/run') as typeof import('@oclif/core/run');
  const { flush } = require('@oclif/core/flush') as typeof import('@oclif/core/flush');
  const { reportAndExit } = require('./errors') as typeof import('./errors');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const root = resolve(__dirname, '..', '..', '..');
  run([commandId, ...process.argv.slice(2)], root)
    .then(() => flush())
    .catch(reportAndExit);
}

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
