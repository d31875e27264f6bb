/**
 * The commands' configuration folder (src/cli/context.ts): a -c folder that does not exist is
 * refused before anything is written (a root removed under a starting daemon once sent a minion's
 * keys and log to /etc/salt and /var/log/salt); an existing folder without a file means defaults.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMasterForCli, loadMinionForCli } from '../../src/cli/context';
import { startDaemon } from '../../src/cli/daemon';
import { CliError } from '../../src/cli/errors';

const root = mkdtempSync(join(tmpdir(), 'brine-context-test-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the configuration folder of a command', () => {
  const missing = join(root, 'gone', 'etc', 'salt');

  it('refuses a -c folder that does not exist, naming it and what to do', () => {
    for (const load of [() => loadMasterForCli(missing), () => loadMinionForCli(missing)]) {
      let error: unknown;
      try {
        load();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).message).toBe(`The configuration directory ${missing} does not exist`);
      expect((error as CliError).hint).toMatch(/^Create it .* or give -c the folder/);
    }
  });

  it('starts no daemon on a missing folder: nothing created, nothing written', async () => {
    let created = false;
    const start = startDaemon('minion', { 'config-dir': missing }, () => {
      created = true;
      return { start: async () => undefined, stop: async () => undefined };
    });
    await expect(start).rejects.toThrow(`The configuration directory ${missing} does not exist`);
    expect(created).toBe(false);
    expect(existsSync(join(root, 'gone'))).toBe(false);
    expect(readdirSync(root)).toEqual([]);
  });

  it('takes an existing folder without a configuration file as the defaults, with a warning', () => {
    const dir = join(root, 'empty');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const { config } = loadMinionForCli(dir, 'quiet', { root_dir: root });
    expect(config.pki_dir).toBe(join(root, 'etc', 'salt', 'pki', 'minion'));
  });
});
