/**
 * Parsers and lookup tables behind Salt 3007's Linux OS grains (salt/grains/core.py). The tables
 * hold Salt's own historic names, so a brine minion reports what a Salt minion would on the same box.
 */

/** Parse an os-release file (`KEY=value`, values optionally quoted) into a map. */
export function parseOsRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    let v = m[2].trim();
    if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) v = v.slice(1, -1);
    out[m[1]] = v.replace(/\\(["'$`\\])/g, '$1');
  }
  return out;
}

/**
 * Parse /etc/lsb-release the way Salt does: only DISTRIB_{ID,RELEASE,CODENAME,DESCRIPTION}, and a
 * value only up to the first character outside `[\w\s.-]` (Salt's regex), right-trimmed.
 * Keys come back as Salt's grain names (`lsb_distrib_id`, ...).
 */
export function parseLsbRelease(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^(DISTRIB_(?:ID|RELEASE|CODENAME|DESCRIPTION))=['"]?([\w\s.-]+)['"]?/.exec(line);
    if (m) out[`lsb_${m[1].toLowerCase()}`] = m[2].trimEnd();
  }
  return out;
}

/** First ten characters (no spaces, lower case) of the distribution name → Salt's `os` grain. */
export const OS_NAME_MAP: Record<string, string> = {
  redhatente: 'RedHat',
  gentoobase: 'Gentoo',
  archarm: 'Arch ARM',
  arch: 'Arch',
  debian: 'Debian',
  raspbian: 'Raspbian',
  fedoraremi: 'Fedora',
  chapeau: 'Chapeau',
  korora: 'Korora',
  amazonami: 'Amazon',
  alt: 'ALT',
  enterprise: 'OEL',
  oracleserv: 'OEL',
  cloudserve: 'CloudLinux',
  cloudlinux: 'CloudLinux',
  almalinux: 'AlmaLinux',
  pidora: 'Fedora',
  scientific: 'ScientificLinux',
  synology: 'Synology',
  nilrt: 'NILinuxRT',
  poky: 'Poky',
  manjaro: 'Manjaro',
  manjarolin: 'Manjaro',
  univention: 'Univention',
  antergos: 'Antergos',
  sles: 'SUSE',
  void: 'Void',
  slesexpand: 'RES',
  linuxmint: 'Mint',
  neon: 'KDE neon',
  pop: 'Pop',
  rocky: 'Rocky',
  alibabaclo: 'Alinux',
  mendel: 'Mendel',
};

/** (os-release ID, NAME) pairs whose `os` grain Salt keeps for history's sake. */
const ID_AND_NAME_TO_OS: Record<string, string> = {
  'astra\u0000Astra Linux (Orel)': 'AstraLinuxCE',
  'astra\u0000Astra Linux (Smolensk)': 'AstraLinuxSE',
  'pop\u0000Pop!_OS': 'Pop',
};

/**
 * Salt's `os` grain from a distribution's full name (os-release NAME): drop " Linux"/"GNU/Linux",
 * then look the squashed first ten characters up in OS_NAME_MAP, else keep the shortened name.
 */
export function deriveOsName(fullName: string, osId?: string): string {
  const pinned = osId === undefined ? undefined : ID_AND_NAME_TO_OS[`${osId}\u0000${fullName}`];
  if (pinned !== undefined) return pinned;
  const distro = fullName.replace(/[^\p{L}\p{N}_](?:gnu\/)?linux/giu, '').trim();
  return OS_NAME_MAP[distro.replace(/ /g, '').toLowerCase().slice(0, 10)] ?? distro;
}

/** Salt's `os` → `os_family`; an `os` not listed is its own family. */
export const OS_FAMILY_MAP: Record<string, string> = {
  Ubuntu: 'Debian',
  Fedora: 'RedHat',
  Chapeau: 'RedHat',
  Korora: 'RedHat',
  FedBerry: 'RedHat',
  CentOS: 'RedHat',
  'CentOS Stream': 'RedHat',
  GoOSe: 'RedHat',
  Scientific: 'RedHat',
  Amazon: 'RedHat',
  CloudLinux: 'RedHat',
  AlmaLinux: 'RedHat',
  OVS: 'RedHat',
  OEL: 'RedHat',
  XCP: 'RedHat',
  'XCP-ng': 'RedHat',
  XenServer: 'RedHat',
  RES: 'RedHat',
  Sangoma: 'RedHat',
  'VMware Photon OS': 'RedHat',
  Mandrake: 'Mandriva',
  Mint: 'Debian',
  VMwareESX: 'VMware',
  Bluewhite64: 'Bluewhite',
  Slamd64: 'Slackware',
  SLES: 'Suse',
  'SUSE Enterprise Server': 'Suse',
  'SUSE  Enterprise Server': 'Suse',
  SLED: 'Suse',
  openSUSE: 'Suse',
  SUSE: 'Suse',
  'openSUSE Leap': 'Suse',
  'openSUSE Tumbleweed': 'Suse',
  SLES_SAP: 'Suse',
  'Arch ARM': 'Arch',
  Manjaro: 'Arch',
  'Manjaro ARM': 'Arch',
  Antergos: 'Arch',
  EndeavourOS: 'Arch',
  ALT: 'RedHat',
  Trisquel: 'Debian',
  GCEL: 'Debian',
  Linaro: 'Debian',
  'elementary OS': 'Debian',
  elementary: 'Debian',
  Univention: 'Debian',
  ScientificLinux: 'RedHat',
  Raspbian: 'Debian',
  Devuan: 'Debian',
  antiX: 'Debian',
  Kali: 'Debian',
  'Parrot OS': 'Debian',
  neon: 'Debian',
  Cumulus: 'Debian',
  Deepin: 'Debian',
  NILinuxRT: 'NILinuxRT',
  'KDE neon': 'Debian',
  Void: 'Void',
  IDMS: 'Debian',
  Funtoo: 'Gentoo',
  TurnKey: 'Debian',
  Pop: 'Debian',
  Rocky: 'RedHat',
  AstraLinuxCE: 'Debian',
  AstraLinuxSE: 'Debian',
  Alinux: 'RedHat',
  Mendel: 'Debian',
  OSMC: 'Debian',
};

/** `uname -m` → the Debian package architecture (`dpkg --print-architecture`), Salt's `osarch` there. */
export const DEB_ARCH: Record<string, string> = {
  x86_64: 'amd64',
  aarch64: 'arm64',
  armv7l: 'armhf',
  i686: 'i386',
  i386: 'i386',
  ppc64le: 'ppc64el',
  s390x: 's390x',
};
