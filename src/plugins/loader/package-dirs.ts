import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { PluginDefinitionError } from '../api/errors';
import type { LoadProblem } from './registry';

function isDir(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

function packageName(dir: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown };
    return typeof pkg.name === 'string' ? pkg.name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folder of the running brine installation: the nearest package.json named `brine` above this
 * file (a checkout, `node_modules/brine`, or a global install), or undefined when there is none
 * (brine bundled into something else).
 */
export function brineInstallRoot(from: string = __dirname): string | undefined {
  let dir = resolve(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && packageName(dir) === 'brine') return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * The node_modules folders the minion searches for `brine-plugin-*` packages, in priority order
 * (a package found earlier wins over one of the same name found later):
 *
 * 1. each `plugin_dirs` entry of the minion config, and its `node_modules` subfolder when it has
 *    one — so both `/srv/brine-plugins/node_modules` and the `--prefix` folder of
 *    `npm install --prefix /srv/brine-plugins brine-plugin-hello` work;
 * 2. the brine installation's own `node_modules` (`npm install brine-plugin-hello` in a checkout);
 * 3. the `node_modules` that holds brine itself, where its siblings live (`npm install brine
 *    brine-plugin-hello` in a project, or both installed with `npm install -g`).
 *
 A configured entry that is not an absolute path to a folder becomes a problem naming it (a typo
 * there would otherwise hide the plugins without a word); the other folders are still searched,
 * as a bad module_dirs entry does not stop the minion either.
 *
 * @example
 * pluginPackageDirs(['/srv/brine-plugins'], '/opt/app/node_modules/brine').dirs
 * // ['/srv/brine-plugins', '/srv/brine-plugins/node_modules', '/opt/app/node_modules/brine/node_modules', '/opt/app/node_modules']
 */
export function pluginPackageDirs(
  configured: unknown,
  installRoot: string | null = brineInstallRoot() ?? null,
): { dirs: string[]; problems: LoadProblem[] } {
  const problems: LoadProblem[] = [];
  const entries = configured === undefined || configured === null ? [] : typeof configured === 'string' ? [configured] : configured;
  const dirs: string[] = [];
  if (!Array.isArray(entries)) {
    problems.push({
      origin: 'plugin_dirs',
      error: new PluginDefinitionError(`plugin_dirs must be a list of folders, got ${JSON.stringify(configured)}`, {
        hint: 'plugin_dirs: [/srv/brine-plugins] in the minion config',
      }),
    });
  }
  for (const entry of Array.isArray(entries) ? (entries as unknown[]) : []) {
    if (typeof entry !== 'string' || !entry.startsWith('/')) {
      problems.push({
        origin: 'plugin_dirs',
        error: new PluginDefinitionError(`plugin_dirs entry ${JSON.stringify(entry)} is not an absolute path`, {
          hint: 'Give the folder where the plugin packages are installed, e.g. /srv/brine-plugins',
        }),
      });
      continue;
    }
    if (!isDir(entry)) {
      problems.push({
        origin: 'plugin_dirs',
        error: new PluginDefinitionError(`plugin_dirs entry ${entry} is not a directory`, {
          hint: `Create it and install plugins there: npm install --prefix ${entry} brine-plugin-<name>`,
        }),
      });
      continue;
    }
    dirs.push(resolve(entry));
    if (isDir(join(entry, 'node_modules'))) dirs.push(resolve(entry, 'node_modules'));
  }
  if (installRoot) {
    const own = join(installRoot, 'node_modules');
    if (isDir(own)) dirs.push(own);
    const holder = dirname(installRoot);
    if (basename(holder) === 'node_modules') dirs.push(holder);
  }
  return { dirs: [...new Set(dirs)], problems };
}
