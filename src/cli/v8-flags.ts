/**
 * V8 flags a command sets for itself, unless its command line already gave them: bin/*'s `exec
 * node` lines carry the flags each command starts with (test/cli/bin-flags.test.ts), and `node bin/salt`
 * or a test's child without them still gets the same V8. node:v8 is required only when a flag is
 * missing: it was 0.3 MiB of the `salt` CLI's peak RSS (docs/scaling.md).
 */
export function setV8Flags(flags: string): void {
  const missing = flags.split(' ').filter((flag) => !process.execArgv.includes(flag));
  if (missing.length > 0) (require('node:v8') as typeof import('node:v8')).setFlagsFromString(missing.join(' '));
}
