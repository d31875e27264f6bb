import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { BrineError, withHint } from '../core/errors';
import { describeProcess } from '../core/process-owner';
import { CliError } from './errors';

/** Set in the environment of the background copy started by -d. */
const DAEMON_CHILD = 'BRINE_DAEMON_CHILD';

export function isDaemonChild(): boolean {
  return process.env[DAEMON_CHILD] === '1';
}

/** What the background copy tells its parent: up, or why it could not start (one line). */
type StartMessage = { ready: true } | { failed: string };

/**
 * `-d`: starts the same command again without -d, detached, its output going to the log file, and
 * resolves with its pid once it reports that it is up, or rejects with the one line saying why it
 * could not start. So `salt-master -d && salt-key -L` works, and a busy port or a bad
 * configuration is reported where it was typed, without a stack.
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
    let failure: string | undefined;
    child.on('message', (msg: StartMessage) => {
      if ('failed' in msg) {
        failure = msg.failed;
        return;
      }
      child.removeAllListeners('close');
      child.disconnect();
      child.unref();
      resolve(child.pid ?? 0);
    });
    // 'close', not 'exit': it comes after the IPC channel has delivered every message.
    child.once('close', (code) =>
      reject(new CliError(failure ?? `the daemon stopped during start-up (exit code ${code}); see ${logFile}`, 1)),
    );
  });
}

let reported = false;

/** In the background copy: tell the parent we are up and let go of it (once; later calls do nothing). */
export function reportReady(): void {
  if (reported || !isDaemonChild() || !process.send || !process.connected) return;
  reported = true;
  process.send({ ready: true } satisfies StartMessage);
  process.disconnect();
}

/** In the background copy: the one line the parent prints when start-up failed. */
export function reportStartFailure(err: unknown): void {
  if (reported || !isDaemonChild() || !process.send || !process.connected) return;
  reported = true;
  const message = err instanceof BrineError ? withHint(err) : String((err as Error)?.message ?? err);
  process.send({ failed: message } satisfies StartMessage);
}

/**
 * Takes the daemon's pid file as its lock, before anything shared is touched: created only if
 * absent; a file naming a process that is still running means another daemon owns this
 * configuration, and that is one clear error naming it. A stale file (its process is gone) is
 * replaced.
 */
export function lockPidFile(path: string, role: string): void {
  mkdirSync(dirname(path), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx', 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder)) {
        throw new CliError(
          `salt-${role} is already running with this configuration: pid ${holder} (${describeProcess(holder)}) holds ${path}; stop it first (kill ${holder})`,
          1,
        );
      }
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, `${process.pid}\n`);
    closeSync(fd);
    return;
  }
  throw new CliError(`cannot take the pid file ${path}: another salt-${role} is starting at the same time`, 1);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the pid file if it is still ours. */
export function removePidFile(path: string): void {
  try {
    if (Number(readFileSync(path, 'utf8').trim()) !== process.pid) return;
  } catch {
    return;
  }
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
