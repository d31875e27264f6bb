/**
 * The `yaml` package, loaded on first use. It is about 70 modules (20 ms of a command's start),
 * and most runs need none of it: the minion config, SLS files and command-line words are usually
 * plain YAML, which brine's fast paths read (yaml-fast.ts, yamlifyArg).
 */
let lib: typeof import('yaml') | undefined;

export function yamlLib(): typeof import('yaml') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  lib ??= require('yaml') as typeof import('yaml');
  return lib;
}
