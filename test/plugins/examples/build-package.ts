import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { transpilePluginSource } from '../../../src/plugins/loader/host-require';

/**
 * "npm install" a plugin package folder into `nodeModules`: copy it and compile src/*.ts to
 * dist/*.js (what the package's own `npm run build` does), so the loader finds it by name.
 */
export function installPackage(source: string, nodeModules: string, name: string): string {
  const dest = join(nodeModules, name);
  cpSync(source, dest, { recursive: true });
  mkdirSync(join(dest, 'dist'), { recursive: true });
  for (const file of readdirSync(join(dest, 'src')).filter((f) => f.endsWith('.ts'))) {
    const js = transpilePluginSource(readFileSync(join(dest, 'src', file), 'utf8'), file);
    writeFileSync(join(dest, 'dist', file.replace(/\.ts$/, '.js')), js);
  }
  return dest;
}
