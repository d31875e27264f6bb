/**
 * Which `service` module a host gets, chosen from its grains as Salt's `__virtual__` functions
 * choose (systemd_service, gentoo_service, debian_service). One place, so that each
 * backend, the `service` states and `sys.missing_modules` give the same answer.
 */
export type ServiceBackend = 'systemd' | 'openrc' | 'debian';

/**
 * The backend for these grains, or null. systemd wherever it booted the host (the `init` grain,
 * Salt's `salt.utils.systemd.booted`); otherwise OpenRC on Gentoo and Alpine, Debian's sysvinit
 * (update-rc.d) on Debian, Raspbian, Devuan and NILinuxRT. Salt's rh_service (chkconfig, the Red
 * Hat family before systemd) and upstart_service have no counterpart: those hosts get none.
 */
export function serviceBackend(grains: Record<string, unknown>): ServiceBackend | null {
  const booted = grains.init === 'systemd';
  const os = String(grains.os ?? '');
  if (booted && grains.kernel === 'Linux') return 'systemd';
  if (os === 'Alpine' || (os === 'Gentoo' && !booted)) return 'openrc';
  if (booted) return null;
  if (['Debian', 'Raspbian', 'Devuan', 'NILinuxRT'].includes(os)) return 'debian';
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
      'brine drives systemd, OpenRC (Gentoo, Alpine) and sysvinit (Debian, Devuan, Raspbian)'
    );
  };
}
