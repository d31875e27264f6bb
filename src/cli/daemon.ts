import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadMasterConfig, loadMinionConfig, type MasterConfig, type MinionConfig } from '../core/config';
import { BrineError, withHint } from '../core/errors';
import { createLogging, loggingLayout, type Logging } from '../core/log';
import { describeProcess } from '../core/process-owner';
import { missingFileWarning, requireConfigDir } from './context';
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

export interface DaemonFlags {
  'config-dir': string;
  'log-level'?: string;
  'log-file'?: string;
  'log-file-level'?: string;
  daemon?: boolean;
}

interface Runnable {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** salt-api runs on the master's configuration, with its own log and pid files. */
type Role = 'master' | 'minion' | 'api';
type ConfigOf<R extends Role> = R extends 'minion' ? MinionConfig : MasterConfig;

const ROLE_NAMES: Record<Role, string> = { master: 'Master', minion: 'Minion', api: 'API' };

/**
 * The life of salt-master and salt-minion: configuration, logging, -d, the pid file, and a clean
 * stop on SIGTERM or SIGINT.
 */
export async function startDaemon<R extends Role>(
  role: R,
  flags: DaemonFlags,
  create: (config: ConfigOf<R>, logging: Logging) => Runnable | Promise<Runnable>,
): Promise<void> {
  requireConfigDir(flags['config-dir'], role === 'minion' ? 'minion' : 'master');
  const overrides: Record<string, unknown> = {};
  if (flags['log-level']) overrides.log_level = flags['log-level'];
  if (flags['log-file-level']) overrides.log_level_logfile = flags['log-file-level'];
  const { config, warnings } = (role === 'minion' ? loadMinionConfig : loadMasterConfig)(flags['config-dir'], overrides);
  const files = role === 'api' ? { log_file: config.api_logfile, pidfile: config.api_pidfile } : {};
  const settings = { ...config, ...files } as ConfigOf<R> & {
    log_file: string;
    pidfile: string;
    log_level: string;
    log_level_logfile?: string;
  };
  // --log-file is taken as typed (not under root_dir), as Salt's option parser does.
  if (flags['log-file']) settings.log_file = resolve(flags['log-file']);
  if (flags.daemon) {
    const pid = await daemonize(process.argv.slice(2), settings.log_file);
    process.stdout.write(`salt-${role} started in the background, pid ${pid}\n`);
    return;
  }
  const logging = createLogging({
    ...loggingLayout(settings),
    level: settings.log_level,
    logFile: settings.log_file,
    logFileLevel: settings.log_level_logfile ?? settings.log_level,
    // In the background the log file is the only place lines go (stdout leads there too).
    console: !isDaemonChild(),
  });
  const log = logging.getLogger(`salt.${role}`);
  for (const w of [...missingFileWarning(flags['config-dir'], role === 'minion' ? 'minion' : 'master'), ...warnings]) log.warning(w);
  let daemon: Runnable | undefined;
  try {
    // The pid file is the lock: taken before anything shared (ports, keys, sockets) is touched.
    lockPidFile(settings.pidfile, role);
    daemon = await create(config as ConfigOf<R>, logging);
    const running = daemon;
    onShutdown(async () => {
      log.info(`Shutting down the Salt ${ROLE_NAMES[role]}`);
      await running.stop();
      removePidFile(settings.pidfile);
      await logging.close();
    });
    // A minion may wait a long time for its key to be accepted: it counts as up once configured.
    if (role === 'minion') reportReady();
    await daemon.start();
    reportReady();
  } catch (err) {
    reportStartFailure(err);
    removePidFile(settings.pidfile);
    await daemon?.stop().catch(() => undefined);
    await logging.close();
    throw err;
  }
}
