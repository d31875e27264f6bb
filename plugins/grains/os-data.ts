import { DEB_ARCH, OS_FAMILY_MAP, deriveOsName } from './os-release';

type Grains = Record<string, unknown>;

/** What Salt reads to name a Linux distribution; null where the file is missing. */
export interface DistroSources {
  /** Parsed /etc/os-release (or /usr/lib/os-release). */
  osRelease: Record<string, string> | null;
  /** Parsed /etc/lsb-release (`lsb_distrib_*` keys), empty when there is none. */
  lsbRelease: Record<string, string>;
  /** Text of the distribution's own release file (/etc/redhat-release and the like). */
  distroRelease: string | null;
}

/** The codename in "9.3 (Plow)" or "… release 9.3 (Plow)", as the `distro` library finds it. */
function codenameIn(text: string): string {
  const m = /\((\D+)\)|,\s*(\D+)/.exec(text);
  return (m?.[1] ?? m?.[2] ?? '').trim();
}

/** `distro.codename()`: os-release first, then lsb-release, then the distribution's release file. */
function distroCodename(src: DistroSources): string {
  const rel = src.osRelease ?? {};
  const fromOsRelease = rel.VERSION_CODENAME ?? rel.UBUNTU_CODENAME ?? (rel.VERSION ? codenameIn(rel.VERSION) : '');
  return fromOsRelease || (src.lsbRelease.lsb_distrib_codename ?? '') || (src.distroRelease ? codenameIn(src.distroRelease) : '');
}

/** Vendor and version fields of an os-release CPE_NAME, in either CPE form; null when malformed. */
function parseCpe(cpe: string): { vendor: string; version: string } | null {
  const parts = cpe.split(':');
  if (parts.length <= 4 || parts[0] !== 'cpe') return null;
  if (parts[1].startsWith('/')) return { vendor: parts[2], version: parts[4] };
  if (parts[1] === '2.3' && parts.length >= 6 && parts.length <= 13 && parts.length !== 7) {
    const field = (s: string): string => (s === '*' ? '' : s);
    return { vendor: field(parts[3]), version: field(parts[5]) };
  }
  return null;
}

/**
 * Salt 3007's `os`, `os_family`, `osfullname`, `osrelease`, `oscodename` and `lsb_distrib_*` grains.
 *
 * Salt 3007 ships as a onedir build whose Python cannot import the system `lsb_release` module, so
 * core.py always takes its "legacy" route: lsb_distrib_* come from /etc/lsb-release when present,
 * else from os-release (NAME, VERSION_ID, VERSION_CODENAME or else PRETTY_NAME). That is why
 * Alpine's oscodename is its PRETTY_NAME and RHEL's falls back to the codename in VERSION.
 */
export function linuxDistributionGrains(src: DistroSources): Grains {
  const grains: Grains = { ...src.lsbRelease };
  // Python's freedesktop_os_release() fills these three when a file leaves them out.
  const rel: Record<string, string> | null =
    src.osRelease === null ? null : { NAME: 'Linux', ID: 'linux', PRETTY_NAME: 'Linux', ...src.osRelease };
  let os: string | undefined;
  let fullName: string | undefined;
  if (rel !== null) {
    os = deriveOsName(rel.NAME, rel.ID);
    fullName = rel.NAME.trim();
    if (grains.lsb_distrib_id === undefined) {
      grains.lsb_distrib_id = rel.NAME.trim();
      if (rel.VERSION_ID !== undefined) grains.lsb_distrib_release = rel.VERSION_ID;
      grains.lsb_distrib_codename = rel.VERSION_CODENAME ?? rel.PRETTY_NAME;
      const cpe = rel.CPE_NAME === undefined ? null : parseCpe(rel.CPE_NAME);
      if (cpe !== null && ['suse', 'opensuse'].includes(cpe.vendor.toLowerCase())) {
        os = 'SUSE';
        if (rel.NAME === 'openSUSE Leap') fullName = 'Leap';
        else if (rel.VERSION === 'Tumbleweed') fullName = rel.VERSION;
        if (cpe.version && cpe.vendor === 'opensuse') grains.lsb_distrib_release = cpe.version;
      }
      // Mendel names its version only in PRETTY_NAME ("Mendel GNU/Linux 5 (Eagle)").
      const words = rel.PRETTY_NAME.split(/\s+/).filter(Boolean);
      if (rel.ID.trim() === 'mendel' && words.length >= 3) grains.lsb_distrib_release = words[2];
    }
  }
  fullName ??= String(grains.lsb_distrib_id ?? '').trim();
  const osrelease = String(grains.lsb_distrib_release ?? rel?.VERSION_ID ?? '').trim();
  const osName = os ?? deriveOsName(fullName);
  let lsbCodename = String(grains.lsb_distrib_codename ?? '');
  if (lsbCodename && ['Rocky', 'AlmaLinux', 'AstraLinuxSE'].some((name) => osName.includes(name))) {
    // "Rocky Linux 9.3 (Blue Onyx)" → "Blue Onyx"; Astra SE keeps the first word, lower case.
    const open = lsbCodename.indexOf('(');
    if (open >= 0) {
      const inner = lsbCodename.slice(open + 1).split(')')[0];
      lsbCodename = osName === 'AstraLinuxSE' ? (inner.split(/\s+/).filter(Boolean)[0] ?? '').toLowerCase() : inner;
      grains.lsb_distrib_codename = lsbCodename;
    }
  }
  let oscodename = lsbCodename.trim() || distroCodename(src);
  if (oscodename.includes('Red Hat')) oscodename = distroCodename(src);
  return { ...grains, os: osName, os_family: OS_FAMILY_MAP[osName] ?? osName, osfullname: fullName, osrelease, oscodename };
}

/** Salt's `osarch`: the package manager's architecture name, else the CPU's. */
export function osArch(osFamily: string, cpuarch: string): string {
  // dpkg --print-architecture on Debian; rpm's %{_host_cpu} (the uname name) on RedHat and Suse.
  return osFamily === 'Debian' ? (DEB_ARCH[cpuarch] ?? cpuarch) : cpuarch;
}

/**
 * `osrelease_info`, `osmajorrelease` and `osfinger` from `osrelease`, as Salt's _osrelease_data:
 * numeric parts become numbers, others stay strings; osfinger uses `os` only for a few systems and
 * the full release only for Ubuntu and Pop.
 */
export function osReleaseData(os: string, osfullname: string, osrelease: string): Grains {
  const info: (number | string)[] = osrelease.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const grains: Grains = { osrelease_info: info };
  if (typeof info[0] === 'number') grains.osmajorrelease = info[0];
  const name = ['Debian', 'FreeBSD', 'OpenBSD', 'NetBSD', 'Mac', 'Raspbian'].includes(os) ? os : osfullname;
  grains.osfinger = `${name}-${['Ubuntu', 'Pop'].includes(os) ? osrelease : String(info[0])}`;
  return grains;
}
