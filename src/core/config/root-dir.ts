/**
 * salt.config.prepend_root_dir on POSIX: put root_dir in front of each path option unless the
 * path already lies under root_dir. Relative paths are taken relative to root_dir.
 * With root_dir /tmp/x, pki_dir /etc/salt/pki/master becomes /tmp/x/etc/salt/pki/master.
 */
import path from 'node:path';

export function prependRootDir(opts: Record<string, unknown>, pathOptions: readonly string[]): void {
  const rootDir = path.resolve(String(opts.root_dir ?? '/'));
  for (const name of pathOptions) {
    const value = opts[name];
    if (typeof value !== 'string' || value === '') continue;
    // log_file may be a syslog URL (udp://, file://...): not a path on this system.
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) continue;
    let rest = value;
    if (rootDir !== '/' && (value === rootDir || value.startsWith(rootDir + '/'))) rest = value.slice(rootDir.length);
    opts[name] = path.posix.join(rootDir, rest.replace(/^\/+/, '')) || '/';
  }
}
