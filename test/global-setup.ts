/**
 * Every test keeps its files under a temporary root. If a test (or a binary it runs without
 * -c/root_dir) writes Salt's system paths, the whole run fails and names them. The commands' code
 * cache (src/cli/compile-cache.ts) would live under the machine's temporary folder: the run gives
 * it a folder of its own (inherited by the test workers and the binaries they start) and removes it.
 * So does the workers' port counter (BRINE_TEST_PORTS, see scripts/free-port.ts).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SYSTEM_PATHS = ['/etc/salt', '/var/cache/salt', '/var/run/salt', '/var/log/salt'];

export default function setup(): () => void {
  const before = new Set(SYSTEM_PATHS.filter((p) => existsSync(p)));
  const ownCache = process.env.BRINE_COMPILE_CACHE === undefined ? mkdtempSync(join(tmpdir(), 'brine-test-compile-cache-')) : undefined;
  if (ownCache) process.env.BRINE_COMPILE_CACHE = ownCache;
  const ports = mkdtempSync(join(tmpdir(), 'brine-test-ports-'));
  process.env.BRINE_TEST_PORTS = ports;
  return () => {
    if (ownCache) rmSync(ownCache, { recursive: true, force: true });
    rmSync(ports, { recursive: true, force: true });
    const created = SYSTEM_PATHS.filter((p) => !before.has(p) && existsSync(p));
    if (created.length > 0)
      throw new Error(
        `the tests wrote outside their temporary roots: ${created.join(', ')} (remove them, then find the test that ran without -c or root_dir)`,
      );
  };
}
