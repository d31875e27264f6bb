/**
 * The reference Salt 3007.10 (../shared/salt-ref, installed by its setup.sh) for the
 * interoperability suite and the benchmarks: where it is, and real Salt daemons and CLIs under a
 * given root on loopback. Salt's master and minion fork worker processes: each is started in its
 * own process group and stopped by that group's id.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Daemon, REPO, type RunResult } from './cluster';

/** Where the reference Salt is installed: $BRINE_SALT_REF, or ~/.cache/brine-salt-ref. */
export const SALT_REF = process.env.BRINE_SALT_REF || join(homedir(), '.cache', 'brine-salt-ref');

export const SALT_REF_INSTALL = `../shared/salt-ref/setup.sh ${SALT_REF}`;

export function saltRefInstalled(): boolean {
  return existsSync(join(SALT_REF, '.salt-ref-3007.10')) && existsSync(join(SALT_REF, 'bin', 'salt-master'));
}

/** How long a Salt daemon's clean shutdown may take before it is killed. */
const SALT_STOP_GRACE_MS = 15_000;

/** A real Salt daemon, in its own process group (its workers go with it on stop). */
export class SaltDaemon extends Daemon {
  /** The whole process group: Salt's workers and job processes with it. */
  override kill(): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  override async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number> {
    const pid = this.child.pid;
    if (pid !== undefined && this.child.exitCode === null && this.child.signalCode === null) {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
    }
    // A Salt master on busy cores can take long to wind down: past the grace, it is killed, so a
    // test's clean-up finishes within its hook's time and removes the daemon's folders.
    const grace = setTimeout(() => this.kill(), SALT_STOP_GRACE_MS);
    const code = await this.exited;
    clearTimeout(grace);
    this.kill(); // workers that outlive their parent's clean shutdown
    return code;
  }
}

export function startSalt(name: string, bin: 'salt-master' | 'salt-minion' | 'salt-api', configDir: string): SaltDaemon {
  const child = spawn(join(SALT_REF, 'bin', bin), ['-c', configDir, '-l', 'info'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new SaltDaemon(name, child);
}

/**
 * Salt's own `salt-run state.event` on a Salt master: its event bus, one `tag\tjson` line per
 * event, in the returned daemon's log (stopped with the daemon).
 */
export function saltEventStream(masterConfigDir: string): SaltDaemon {
  const child = spawn(join(SALT_REF, 'bin', 'salt-run'), ['-c', masterConfigDir, 'state.event'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  return new SaltDaemon('salt-run state.event', child);
}

/** Runs one of the reference Salt's CLIs (salt, salt-key, salt-run, salt-call) with `-c configDir`. */
export function runSalt(bin: string, configDir: string, args: string[], timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(join(SALT_REF, 'bin', bin), ['-c', configDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, stdout, stderr });
    });
  });
}

/** Writes a Salt minion's config (README of ../shared/salt-ref) and returns its config dir. */
export function writeSaltMinionConfig(root: string, id: string, retPort: number, extra: Record<string, unknown> = {}): string {
  const dir = join(root, 'saltminions', id);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'minion'),
    stringify({
      root_dir: dir,
      user: userInfo().username,
      id,
      master: '127.0.0.1',
      master_port: retPort,
      acceptance_wait_time: 1,
      random_reauth_delay: 0,
      log_level_logfile: 'info',
      ...extra,
    }),
  );
  return dir;
}

/** Writes a Salt master's config under `root` and returns its config dir. */
export function writeSaltMasterConfig(root: string, ports: { publish: number; ret: number }, extra: Record<string, unknown> = {}): string {
  const dir = join(root, 'saltmaster');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'master'),
    stringify({
      root_dir: dir,
      user: userInfo().username,
      interface: '127.0.0.1',
      publish_port: ports.publish,
      ret_port: ports.ret,
      log_level_logfile: 'info',
      ...extra,
    }),
  );
  return dir;
}

/** The Salt minion's log file under its config dir (root_dir = the config dir). */
export function saltLog(configDir: string, kind: 'master' | 'minion'): string {
  return join(configDir, 'var', 'log', 'salt', kind);
}

export { REPO };
