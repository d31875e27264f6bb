/**
 * Real .rpm packages for the tests of the RHEL-family modules, built with rpmbuild (Debian
 * packages rpm; .ci/run installs it) and installed into a throwaway `--root`. Each package is
 * noarch with no automatic requirements (the throwaway root has no /bin/sh to satisfy them); its
 * build time and build host are fixed, so what rpm reports of them can be asserted exactly.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The build time of every package built here: 2001-01-01T00:00:00Z. */
export const RPM_BUILD_TIME = 978307200;
/** The build host of every package built here. */
export const RPM_BUILD_HOST = 'brine.test';

/** Installed files belong to root: run as another user, rpm -V would also report their owner. */
export const AS_ROOT = process.getuid?.() === 0;

/** Whether `command --version` runs. In CI (CI=true) its absence is an error saying `why`. */
function haveTool(command: string, why: string): boolean {
  try {
    execFileSync(command, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error(why);
    return false;
  }
}

/** Whether rpm and rpmbuild are here. In CI (CI=true) their absence is an error: .ci/run installs them. */
export function haveRpmbuild(): boolean {
  return haveTool('rpmbuild', "rpm and rpmbuild are missing: .ci/run installs Debian's rpm package");
}

/** Whether cpio is here (lowpkg.diff unpacks rpm2cpio's archive with it). In CI its absence is an error: .ci/run installs it. */
export function haveCpio(): boolean {
  return haveTool('cpio', "cpio is missing: .ci/run installs Debian's cpio package");
}

/** One file of a package. */
export interface RpmFileSpec {
  /** Absolute path where rpm installs it. */
  path: string;
  content: string | Buffer;
  /** Default 0o644. */
  mode?: number;
  /** Its %files attribute: `%config`, `%doc`, ... */
  attr?: string;
}

/** What to build. */
export interface RpmSpec {
  name: string;
  version: string;
  /** Default '1'. */
  release?: string;
  epoch?: number;
  summary: string;
  /** Default 'MIT'. */
  license?: string;
  /** Default: the summary. */
  description?: string;
  /** More header lines: `Vendor: ...`, `URL: ...`, `Packager: ...`, `Group: ...`. */
  tags?: string[];
  files: RpmFileSpec[];
  /** Directories the package owns (%dir). */
  dirs?: string[];
}

/** Build `spec` under `topdir` (rpmbuild's _topdir): the path of the .rpm file. */
export function buildRpm(topdir: string, spec: RpmSpec): string {
  const release = spec.release ?? '1';
  const nvr = `${spec.name}-${spec.version}-${release}`;
  // The files as they will be installed, copied into the buildroot by %install.
  const staging = join(topdir, 'CONTENT', nvr);
  for (const f of spec.files) {
    const target = join(staging, f.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.content);
    chmodSync(target, f.mode ?? 0o644);
  }
  for (const d of spec.dirs ?? []) mkdirSync(join(staging, d), { recursive: true });
  const specFile = join(topdir, 'SPECS', `${nvr}.spec`);
  mkdirSync(dirname(specFile), { recursive: true });
  writeFileSync(
    specFile,
    [
      `Name: ${spec.name}`,
      ...(spec.epoch === undefined ? [] : [`Epoch: ${spec.epoch}`]),
      `Version: ${spec.version}`,
      `Release: ${release}`,
      `Summary: ${spec.summary}`,
      `License: ${spec.license ?? 'MIT'}`,
      ...(spec.tags ?? []),
      'BuildArch: noarch',
      'AutoReqProv: no',
      '%description',
      spec.description ?? spec.summary,
      '%install',
      'mkdir -p %{buildroot}',
      `cp -a '${staging}/.' %{buildroot}/`,
      '%files',
      ...spec.files.map((f) => (f.attr ? `${f.attr} ${f.path}` : f.path)),
      ...(spec.dirs ?? []).map((d) => `%dir ${d}`),
      '',
    ].join('\n'),
  );
  execFileSync(
    'rpmbuild',
    [
      ...['--define', `_topdir ${topdir}`, '--define', '_build_id_links none'],
      ...['--define', `_buildhost ${RPM_BUILD_HOST}`, '--define', 'use_source_date_epoch_as_buildtime 1'],
      ...['--quiet', '-bb', specFile],
    ],
    { stdio: 'pipe', env: { ...process.env, SOURCE_DATE_EPOCH: String(RPM_BUILD_TIME) } },
  );
  return join(topdir, 'RPMS', 'noarch', `${nvr}.noarch.rpm`);
}

/** `rpm --root <root> args...`: its stdout. */
export function rpmIn(root: string, ...args: string[]): string {
  return execFileSync('rpm', ['--root', root, ...args], { encoding: 'utf8', stdio: 'pipe' });
}

/** A new rpm database under `root`, with `rpmFiles` installed one after the other (no scripts, no dependency checks). */
export function initRoot(root: string, ...rpmFiles: string[]): void {
  mkdirSync(root, { recursive: true });
  rpmIn(root, '--initdb');
  for (const file of rpmFiles) rpmIn(root, '-i', '--nodeps', '--noscripts', file);
}
