import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Set in the environment of the background copy started by -d. */
const DAEMON_CHILD = 'BRINE_DAEMON_CHILD';

export function isDaemonChild(): boolean {
  return process.env[DAEMON_CHILD] === '1';
}

/**
 * `-d`: starts the same command again without -d, detached, its output going to the log file, and
 * resolves with its pid once it reports that it is up (or rejects with why it stopped). So
 * `salt-master -d && salt-key -L` works, and a bad configuration is reported where it was typed.
 */
export function daemonize(argv: string[], logFile: string): Promise<number> {
  mkdirSync(dirname(logFile), { recursive: true });
  const out = openSync(logFile, 'a');
  const args = argv.filter((a) => a !== '-d' && a !== '--daemon');
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1], ...args], {
    detached: true,
    stdio: ['ignore', out, out, 'ipc'],
    env: { ...process.env, [DAEMON_CHILD]: '1' },
  });
  closeSync(out);
  return new Promise((resolve, reject) => {
    child.once('message', (msg) => {
      if (msg !== 'ready') return;
      child.disconnect();
      child.unref();
      resolve(child.pid ?? 0);
    });
    child.once('exit', (code) => reject(new Error(`the daemon stopped during start-up (exit code ${code}); see ${logFile}`)));
  });
}

/** In the background copy: tell the parent we are up and let go of it. */
export function reportReady(): void {
  if (isDaemonChild() && process.send) {
    process.send('ready');
    process.disconnect();
  }
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
