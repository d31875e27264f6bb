import { flush, run } from '@oclif/core';
import { resolve } from 'node:path';
import { reportAndExit } from './errors';

/**
 * Entry point of every bin: `salt-key -L` runs the oclif command `salt-key` with the rest of argv,
 * so each bin behaves as its own program, the way Salt users know them.
 */
export function main(commandId: string): void {
  const root = resolve(__dirname, '..', '..', '..');
  run([commandId, ...process.argv.slice(2)], root)
    .then(() => flush())
    .catch(reportAndExit);
}
