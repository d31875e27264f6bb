import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

// The same code runs from src/ (vitest) and from dist/src/ (built), so walk up to the package.json
// named brine instead of assuming a depth.
function findVersion(): string {
  for (let dir = __dirname; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'brine' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json at this level: keep walking up
    }
    if (dirname(dir) === dir) throw new Error(`brine's package.json not found above ${__dirname}`);
  }
}

/**
 * brine's version, from its package.json.
 *
 * @example
 * import { BRINE_VERSION } from 'brine/plugin';
 * BRINE_VERSION // '0.1.0'
 */
export const BRINE_VERSION: string = findVersion();
