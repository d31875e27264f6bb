import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * `-d`: start the same command again without -d, detached, its output going to the log file, and
 * return at once. The child writes its own pid file.
 */
export function daemonize(argv: string[], logFile: string): number {
  mkdirSync(dirname(logFile), { recursive: true });
  const out = openSync(logFile, 'a');
  const args = argv.filter((a) => a !== '-d' && a !== '--daemon');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...args], {
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  closeSync(out);
  return child.pid ?? 0;
}

export function writePidFile(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${process.pid}\n`);
}

export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits with `code`. A second signal while stopping
 * exits at once.
 */
export function onShutdown(stop: () => Promise<void>, code = 0): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    stopping = true;
    stop().then(
      () => process.exit(code),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}
