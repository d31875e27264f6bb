import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const REPO = resolve(__dirname, '../../..');
import { transpilePluginSource } from '../../../src/plugins/loader/host-require';

/**
 * "npm install" a plugin package folder into `nodeModules`: copy it and compile src/*.ts to
 * dist/*.js (what the package's own `npm run build` does), so the loader finds it by name.
 */
export function installPackage(source: string, nodeModules: string, name: string): string {
  const dest = join(nodeModules, name);
  cpSync(source, dest, { recursive: true });
  // npm installs the peer dependency (brine) beside the package: here, this repository's build.
  if (!existsSync(join(nodeModules, 'brine'))) symlinkSync(REPO, join(nodeModules, 'brine'), 'dir');
  mkdirSync(join(dest, 'dist'), { recursive: true });
  for (const file of readdirSync(join(dest, 'src')).filter((f) => f.endsWith('.ts'))) {
    const js = transpilePluginSource(readFileSync(join(dest, 'src', file), 'utf8'), file);
    writeFileSync(join(dest, 'dist', file.replace(/\.ts$/, '.js')), js);
  }
  return dest;
}
