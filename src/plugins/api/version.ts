import { readFileSync } from 'node:fs';
import * as os from 'node:os';
import { dirname, join } from 'node:path';

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
}

// The same code runs from src/ (vitest) and from dist/src/ (built), so walk up to the package.json
// named brine instead of assuming a depth.
function findBrine(): { root: string; pkg: PackageJson } {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
      if (pkg.name === 'brine' && typeof pkg.version === 'string') return { root: dir, pkg };
    } catch {
      // no package.json at this level: keep walking up
    }
    if (dirname(dir) === dir) throw new Error(`brine's package.json not found above ${__dirname}`);
  }
}

const BRINE = findBrine();

function findVersion(): string {
  return BRINE.pkg.version as string;
}

/** The installed version of one of brine's dependencies, or undefined when it is not installed. */
function installedVersion(name: string): string | undefined {
  for (let dir = BRINE.root; ; dir = dirname(dir)) {
    try {
      return (JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as PackageJson).version;
    } catch {
      if (dirname(dir) === dir) return undefined;
    }
  }
}

/**
 * brine's version, from its package.json.
 *
 * @example
 * import { BRINE_VERSION } from 'brine/plugin';
 * BRINE_VERSION // '0.1.0'
 */
export const BRINE_VERSION: string = findVersion();

/**
 * The Salt release whose protocol and behaviour brine reproduces. Minions report it as their
 * `saltversion` grain and `test.version`, so Salt masters and inventory tools treat a brine minion
 * as a current Salt; brine's own version is `BRINE_VERSION` (the `brineversion` grain).
 *
 * @example
 * import { SALT_VERSION } from 'brine/plugin';
 * SALT_VERSION // '3007.10'
 */
export const SALT_VERSION = '3007.10';

/** Salt's `saltversioninfo` for {@link SALT_VERSION}: `[3007, 10]` (major, minor). */
export const SALT_VERSION_INFO: readonly number[] = Object.freeze(SALT_VERSION.split('.').map(Number));

/**
 * The libzmq release whose ZeroMQ brine speaks ('4.3.5', the one zeromq.js bundles), Salt's
 * `zmqversion` grain. Written here rather than asked of libzmq: a daemon whose sockets are all
 * Node's (`zmq_ports: node`, the default) never loads it, and asking would load it for one string.
 * test/plugins/modules/core-grains.test.ts fails if the bundled libzmq is ever another release.
 *
 * @example
 * import { zmqVersion } from 'brine/plugin';
 * await zmqVersion() // '4.3.5'
 */
export function zmqVersion(): Promise<string> {
  return Promise.resolve(ZMQ_VERSION);
}

/** See zmqVersion. */
export const ZMQ_VERSION = '4.3.5';

/** `/etc/os-release`'s ID, VERSION_ID and VERSION_CODENAME, as Salt's `dist` line. */
function distribution(): string {
  try {
    const fields = Object.fromEntries(
      readFileSync('/etc/os-release', 'utf8')
        .split('\n')
        .map((l) => /^([A-Z_]+)=(.*)$/.exec(l))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => [m[1], m[2].replace(/^"(.*)"$/, '$1')]),
    );
    return [fields.ID, fields.VERSION_ID, fields.VERSION_CODENAME].filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/**
 * Salt's `--versions-report` / `test.versions_report` layout (salt/version.py versions_report):
 * sections of right-aligned `name: version` lines, "Not Installed" for what is missing. The
 * Salt section names the release brine reproduces and brine's own version; the dependencies
 * are brine's (its package.json), with the versions installed.
 *
 * @example
 * versionsReport().split('\n')[0] // 'Salt Version:'
 */
export function versionsReport(): string {
  const { release, version, machine, type } = osInfo();
  const sections: Array<[string, Record<string, string | undefined>]> = [
    ['Salt Version', { Salt: SALT_VERSION, brine: BRINE_VERSION }],
    ['Node Version', { Node: process.versions.node }],
    ['Dependency Versions', Object.fromEntries(Object.keys(BRINE.pkg.dependencies ?? {}).map((d) => [d, installedVersion(d)]))],
    [
      'System Versions',
      { dist: distribution(), locale: Intl.DateTimeFormat().resolvedOptions().locale, machine, release, system: type, version },
    ],
  ];
  const pad = Math.max('Not Installed'.length, ...sections.slice(2).flatMap(([, e]) => Object.keys(e).map((k) => k.length))) + 1;
  const lines: string[] = [];
  for (const [title, entries] of sections) {
    lines.push(`${title}:`);
    for (const name of Object.keys(entries).sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()))) {
      lines.push(`${name.padStart(pad)}: ${entries[name] || 'Not Installed'}`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

function osInfo(): { release: string; version: string; machine: string; type: string } {
  return { release: os.release(), version: os.version(), machine: os.machine(), type: os.type() };
}
