/**
 * Which `service` module a host gets, chosen from its grains as Salt's `__virtual__` functions
 * choose (systemd_service, gentoo_service, debian_service, rh_service). One place, so that each
 * backend, the `service` states and `sys.missing_modules` give the same answer.
 */
export type ServiceBackend = 'systemd' | 'openrc' | 'debian' | 'rh';

/** Salt's rh_service platforms (those still on Red Hat's /sbin/service before systemd). */
const RH_OSES = new Set([
  'XenServer',
  'XCP-ng',
  'RedHat',
  'CentOS',
  'ScientificLinux',
  'CloudLinux',
  'Amazon',
  'Fedora',
  'ALT',
  'OEL',
  'SUSE  Enterprise Server',
  'SUSE',
  'McAfee  OS Server',
  'VirtuozzoLinux',
]);

/** rh_service's version rules: the releases that boot with systemd are not its. */
function rhFits(os: string, grains: Record<string, unknown>): boolean {
  const info = grains.osrelease_info;
  const major = Number(Array.isArray(info) ? info[0] : 0) || 0;
  if (os === 'SUSE') return String(grains.osrelease ?? '').startsWith('11');
  if (os === 'XenServer' || os === 'XCP-ng') return major < 7;
  if (os === 'Fedora') return major < 15;
  if (['RedHat', 'CentOS', 'ScientificLinux', 'OEL', 'CloudLinux'].includes(os)) return major < 7;
  return true;
}

/**
 * The backend for these grains, or null. systemd wherever it booted the host (the `init` grain,
 * Salt's `salt.utils.systemd.booted`); otherwise OpenRC on Gentoo and Alpine, Debian's sysvinit
 * (update-rc.d) on Debian, Raspbian, Devuan and NILinuxRT, Red Hat's sysvinit (chkconfig) on the
 * Red Hat family before systemd. Salt's upstart_service has no counterpart: Ubuntu without
 * systemd gets none.
 */
export function serviceBackend(grains: Record<string, unknown>): ServiceBackend | null {
  const booted = grains.init === 'systemd';
  const os = String(grains.os ?? '');
  if (booted && grains.kernel === 'Linux') return 'systemd';
  if (os === 'Alpine' || (os === 'Gentoo' && !booted)) return 'openrc';
  if (booted) return null;
  if (['Debian', 'Raspbian', 'Devuan', 'NILinuxRT'].includes(os)) return 'debian';
  if (RH_OSES.has(os) && rhFits(os, grains)) return 'rh';
  return null;
}

/** `available` of a backend module: true on its hosts, else why no backend (or another one) serves this host. */
export function backendVerdict(backend: ServiceBackend): (grains: Record<string, unknown>) => true | string {
  return (grains) => {
    const chosen = serviceBackend(grains);
    if (chosen === backend) return true;
    if (chosen !== null) return `this host's service backend is ${chosen}, not ${backend}`;
    return (
      `no service backend for this host (init ${String(grains.init ?? 'unknown')}, os ${String(grains.os ?? 'unknown')}): ` +
      'brine drives systemd, OpenRC (Gentoo, Alpine) and sysvinit (Debian family; Red Hat family before systemd)'
    );
  };
}
