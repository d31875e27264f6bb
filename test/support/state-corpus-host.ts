/**
 * The corpus cases whose output depends on the host Salt ran on, not on Salt: its package
 * database and apt cache. Only those host values are adapted here; every other byte of their
 * expected outputs is compared as stored.
 *
 * - 89-pkg-testtrue: `pkg.installed` in test mode predicts the candidate version apt offers
 *   (`cowsay 3.03+dfsg2-8` in the capture host's apt cache, found after `apt-get update`, which
 *   Salt's `pkg.latest_version` runs). Rather than rewrite the expected output, salt-call gets an
 *   apt of its own (APT_CONFIG) whose only repository offers `cowsay` at that same version: the
 *   output is then compared byte for byte, offline, without touching the machine's apt lists.
 *   dpkg's database stays the machine's own (coreutils is installed on every Debian).
 * - 92-pkg-list-pkgs: `pkg.list_pkgs` lists the host's packages; the stored outputs are the
 *   first 2000 bytes (its NOTE.txt). The expected text keeps the corpus's header and entry layout
 *   (checked to reproduce the stored file from its own entries) with this host's packages, read
 *   from dpkg-query here, in place of the capture host's; both sides are cut at the same length.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HostDependentCase {
  /** Environment for salt-call, prepared inside the variant's temporary root. */
  env?(root: string): Record<string, string>;
  /** A fingerprint of the host state the output depends on: a run is repeated if it changed meanwhile. */
  fingerprint?(): string;
  /** The stored output adapted to this host (`file` is out.json, out.txt, ...), as `fingerprint` describes it. */
  expected?(file: string, stored: string, fingerprint?: string): string;
  /** The actual output cut as the stored one was. */
  actual?(file: string, text: string, stored: string): string;
}

/** A private apt whose one repository offers `pkg` at `version` (an empty package built with dpkg-deb). */
function aptOffering(root: string, pkg: string, version: string): Record<string, string> {
  const apt = join(root, 'apt');
  for (const d of ['repo', 'lists/partial', 'cache/archives/partial', 'sources.list.d', 'src/DEBIAN'])
    mkdirSync(join(apt, d), { recursive: true });
  writeFileSync(
    join(apt, 'src/DEBIAN/control'),
    `Package: ${pkg}\nVersion: ${version}\nArchitecture: all\nMaintainer: brine tests <tests@example.invalid>\nDescription: stands for the capture host's ${pkg}\n`,
  );
  const file = `${pkg}_${version}_all.deb`;
  const deb = join(apt, 'repo', file);
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', join(apt, 'src'), deb], { stdio: 'ignore' });
  const control = execFileSync('dpkg-deb', ['-f', deb], { encoding: 'utf8' }).trim();
  const sha256 = createHash('sha256').update(readFileSync(deb)).digest('hex');
  writeFileSync(join(apt, 'repo/Packages'), `${control}\nFilename: ./${file}\nSize: ${statSync(deb).size}\nSHA256: ${sha256}\n`);
  writeFileSync(join(apt, 'sources.list'), `deb [trusted=yes] file:${join(apt, 'repo')} ./\n`);
  writeFileSync(
    join(apt, 'apt.conf'),
    [
      `Dir::Etc::SourceList "${join(apt, 'sources.list')}";`,
      `Dir::Etc::SourceParts "${join(apt, 'sources.list.d')}";`,
      `Dir::State::Lists "${join(apt, 'lists')}";`,
      `Dir::Cache "${join(apt, 'cache')}";`,
      'Acquire::Languages "none";',
    ].join('\n') + '\n',
  );
  return { APT_CONFIG: join(apt, 'apt.conf') };
}

interface DpkgState {
  installed: [string, string][];
  /** dpkg rewrites its status file (by rename) and journals into updates/ on every operation. */
  status: string;
  updates: string[];
}

/**
 * The dpkg state a run of list_pkgs depends on. Not the package list alone: a package being
 * upgraded by another test is briefly not installed, and the list before and after the run can
 * be equal while the run saw the gap; the status file's identity and the journal show it.
 */
function dpkgFingerprint(): string {
  const st = statSync('/var/lib/dpkg/status', { bigint: true });
  const state: DpkgState = {
    installed: dpkgInstalled(),
    status: `${st.ino}:${st.mtimeNs}:${st.size}`,
    updates: readdirSync('/var/lib/dpkg/updates').sort(),
  };
  return JSON.stringify(state);
}

/** This host's installed packages as dpkg reports them (what Salt's aptpkg counts as installed), sorted. */
function dpkgInstalled(): [string, string][] {
  const out = execFileSync('dpkg-query', ['-W', '-f', '${Status}\t${Package}\t${Version}\t${Architecture}\n'], { encoding: 'utf8' });
  const native = execFileSync('dpkg', ['--print-architecture'], { encoding: 'utf8' }).trim();
  const ret: [string, string][] = [];
  for (const line of out.split('\n')) {
    const [status, pkg, version, arch] = line.split('\t');
    if (!status) continue;
    const [want, , state] = status.split(' ');
    if (state !== 'installed' || !['install', 'hold', 'purge'].includes(want)) continue;
    ret.push([arch === 'all' || arch === native ? pkg : `${pkg}:${arch}`, version]);
  }
  return ret.sort((a, b) => Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0])));
}

/** The entry layout of each stored variant of case 92: its header and one `name: version` entry. */
const LIST_LAYOUT: Record<string, { header: string; entry: RegExp; render(name: string, version: string): string }> = {
  'out.json': {
    header: '{\n    "local": {\n',
    entry: /^ {8}"([^"]+)": "([^"]*)",\n/,
    render: (n, v) => `        "${n}": "${v}",\n`,
  },
  'out.txt': {
    header: 'local:\n    ----------\n',
    entry: /^ {4}(\S+):\n {8}(\S+)\n/,
    render: (n, v) => `    ${n}:\n        ${v}\n`,
  },
};

function byteCut(text: string, length: number): string {
  return Buffer.from(text).subarray(0, length).toString();
}

export const HOST_DEPENDENT: Record<string, HostDependentCase> = {
  '89-pkg-testtrue': { env: (root) => aptOffering(root, 'cowsay', '3.03+dfsg2-8') },
  '92-pkg-list-pkgs': {
    fingerprint: dpkgFingerprint,
    expected(file, stored, fingerprint) {
      const layout = LIST_LAYOUT[file];
      if (!layout) throw new Error(`92-pkg-list-pkgs: no entry layout known for ${file}`);
      // The layout must give back the stored file from the capture host's own entries.
      let rest = stored.slice(layout.header.length);
      let rebuilt = layout.header;
      for (let m = layout.entry.exec(rest); m; m = layout.entry.exec(rest)) {
        rebuilt += layout.render(m[1], m[2]);
        rest = rest.slice(m[0].length);
      }
      const partial = stored.slice(rebuilt.length);
      if (!stored.startsWith(rebuilt) || rebuilt === layout.header || partial.length > 80 || partial.includes('\n    }'))
        throw new Error(`92-pkg-list-pkgs/${file}: the entry layout does not reproduce the stored output`);
      const installed = fingerprint === undefined ? dpkgInstalled() : (JSON.parse(fingerprint) as DpkgState).installed;
      const host = layout.header + installed.map(([n, v]) => layout.render(n, v)).join('');
      return byteCut(host, Buffer.byteLength(stored));
    },
    actual: (_file, text, stored) => byteCut(text, Buffer.byteLength(stored)),
  },
};
