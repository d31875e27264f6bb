/**
 * Every test keeps its files under a temporary root. If a test (or a binary it runs without
 * -c/root_dir) writes Salt's system paths, the whole run fails and names them.
 */
import { existsSync } from 'node:fs';

const SYSTEM_PATHS = ['/etc/salt', '/var/cache/salt', '/var/run/salt', '/var/log/salt'];

export default function setup(): () => void {
  const before = new Set(SYSTEM_PATHS.filter((p) => existsSync(p)));
  return () => {
    const created = SYSTEM_PATHS.filter((p) => !before.has(p) && existsSync(p));
    if (created.length > 0)
      throw new Error(
        `the tests wrote outside their temporary roots: ${created.join(', ')} (remove them, then find the test that ran without -c or root_dir)`,
      );
  };
}
