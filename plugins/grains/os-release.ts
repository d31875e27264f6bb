/** Parse an os-release file (`KEY=value`, values optionally quoted) into a map. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Z0-9_]+)=(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2].trim();
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[m[1]] = v.replace(/\\(["$`\\])/g, '$1');
  }
  return out;
}

/** os-release ID → Salt's `os` grain. */
export const OS_NAMES: Record<string, string> = {
  debian: 'Debian',
  ubuntu: 'Ubuntu',
  raspbian: 'Raspbian',
  linuxmint: 'Mint',
  centos: 'CentOS',
  rhel: 'RedHat',
  fedora: 'Fedora',
  rocky: 'Rocky',
  almalinux: 'AlmaLinux',
  ol: 'OEL',
  amzn: 'Amazon',
  alpine: 'Alpine',
  arch: 'Arch',
  manjaro: 'Manjaro',
  opensuse: 'SUSE',
  'opensuse-leap': 'Leap',
  'opensuse-tumbleweed': 'openSUSE Tumbleweed',
  sles: 'SUSE',
  gentoo: 'Gentoo',
};

/** Salt's `os` → `os_family`. */
export const OS_FAMILIES: Record<string, string> = {
  Debian: 'Debian',
  Ubuntu: 'Debian',
  Raspbian: 'Debian',
  Mint: 'Debian',
  CentOS: 'RedHat',
  RedHat: 'RedHat',
  Fedora: 'RedHat',
  Rocky: 'RedHat',
  AlmaLinux: 'RedHat',
  OEL: 'RedHat',
  Amazon: 'RedHat',
  Alpine: 'Alpine',
  Arch: 'Arch',
  Manjaro: 'Arch',
  SUSE: 'Suse',
  Leap: 'Suse',
  'openSUSE Tumbleweed': 'Suse',
  Gentoo: 'Gentoo',
};

/** `uname -m` → the Debian package architecture Salt reports as `osarch` there. */
export const DEB_ARCH: Record<string, string> = {
  x86_64: 'amd64',
  aarch64: 'arm64',
  armv7l: 'armhf',
  i686: 'i386',
  i386: 'i386',
  ppc64le: 'ppc64el',
  s390x: 's390x',
};
