/**
 * Real binaries on loopback, for the demo and the end-to-end tests: a master and minions, each with its own root
 * directory under one temporary folder, on free ports. Readiness is read from the daemons' own log
 * lines (no sleeps); everything started is stopped by process id.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from './free-port';

export { freePort };

/** The repository root, from the TypeScript source (vitest) or the compiled dist/ tree. */
function findRepo(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

export const REPO = findRepo(__dirname);
const BIN = join(REPO, 'bin');

/**
 * The arguments after node that start bin/<name> as a user's shell does (node's flags, then the
 * script): spawning `process.execPath` with them runs what a user's `salt-minion` runs, flags and
 * all. A command is `#!/usr/bin/env node`, or `#!/bin/sh` with node's flags on its `exec node`
 * line (see bin/salt).
 */
export function binArgv(name: string): string[] {
  const script = join(BIN, name);
  const [first, second] = readFileSync(script, 'utf8').split('\n', 2);
  if (first === '#!/usr/bin/env node') return [script];
  const flags = first === '#!/bin/sh' ? /^':' \/\/; exec node((?: --[\w-]+(?:=\S+)?)*) "\$0" "\$@"$/.exec(second ?? '') : null;
  if (!flags) throw new Error(`${script}: '#!/usr/bin/env node', or '#!/bin/sh' and an 'exec node' line, was expected`);
  return [...flags[1].split(' ').filter(Boolean), script];
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Daemons this process started that have not exited: what {@link killRunningDaemons} ends. */
const running = new Set<Daemon>();

/**
 * SIGKILLs every daemon this process started that still runs. A test worker calls it when vitest
 * ends it (test/support/reap-daemons.ts): a file whose clean-up hook timed out must not leave its
 * master or minions running into the next files, still signing in to whatever takes their ports.
 */
export function killRunningDaemons(): void {
  for (const daemon of running) daemon.kill();
}

export class Daemon {
  private output = '';
  private readonly waiters: Array<{ text: string | RegExp; resolve: () => void }> = [];
  readonly exited: Promise<number>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const onData = (chunk: Buffer) => {
      this.output += chunk.toString();
      for (const w of [...this.waiters]) {
        if (this.has(w.text)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    running.add(this);
    this.exited = new Promise((res) =>
      child.on('exit', (code, signal) => {
        running.delete(this);
        res(code ?? (signal ? 128 : 0));
      }),
    );
  }

  /** Ends the daemon at once (SIGKILL), without waiting for it. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  get log(): string {
    return this.output;
  }

  private has(text: string | RegExp): boolean {
    return typeof text === 'string' ? this.output.includes(text) : text.test(this.output);
  }

  /**
   * Resolves when the daemon has printed `text`; rejects if it exits first or after timeoutMs.
   * The default is generous because it bounds a start on a loaded two-core machine (ten daemons
   * starting at once beside another test file); a wait that succeeds returns as soon as it can.
   */
  waitFor(text: string | RegExp, timeoutMs = 60_000): Promise<void> {
    if (this.has(text)) return Promise.resolve();
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name}: no "${text}" within ${timeoutMs} ms. Output:\n${this.output}`)),
        timeoutMs,
      );
      const entry = {
        text,
        resolve: () => {
          clearTimeout(timer);
          resolvePromise();
        },
      };
      this.waiters.push(entry);
      void this.exited.then((code) => {
        if (!this.waiters.includes(entry)) return;
        clearTimeout(timer);
        reject(new Error(`${this.name} exited with ${code} before printing "${text}". Output:\n${this.output}`));
      });
    });
  }

  /** Counts how often `text` appears in the output so far. */
  count(text: string): number {
    return this.output.split(text).length - 1;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

export interface MinionSpec {
  id: string;
  /** Folder and handle of this minion when several share one id (default: the id). */
  name?: string;
  grains?: Record<string, unknown>;
  config?: Record<string, unknown>;
  /** The minion's working directory (default: this process's); relative paths in jobs resolve there. */
  cwd?: string;
}

export class Cluster {
  readonly root: string;
  readonly masterDir: string;
  publishPort = 0;
  retPort = 0;
  master?: Daemon;
  readonly minions = new Map<string, Daemon>();

  private constructor(readonly masterConfig: Record<string, unknown>) {
    this.root = mkdtempSync(join(tmpdir(), 'brine-e2e-'));
    this.masterDir = join(this.root, 'master', 'etc', 'salt');
  }

  static async create(masterConfig: Record<string, unknown> = {}): Promise<Cluster> {
    const cluster = new Cluster(masterConfig);
    cluster.publishPort = await freePort();
    cluster.retPort = await freePort();
    mkdirSync(cluster.masterDir, { recursive: true });
    writeFileSync(
      join(cluster.masterDir, 'master'),
      stringify({
        root_dir: join(cluster.root, 'master'),
        interface: '127.0.0.1',
        publish_port: cluster.publishPort,
        ret_port: cluster.retPort,
        keysize: 1024,
        timeout: 5,
        ...masterConfig,
      }),
    );
    return cluster;
  }

  minionDir(id: string): string {
    return join(this.root, 'minions', id, 'etc', 'salt');
  }

  /** Kills the master with SIGKILL (no clean shutdown) and starts it again on the same root. */
  async restartMaster(): Promise<Daemon> {
    await this.master?.stop('SIGKILL');
    return this.startMaster();
  }

  /**
   * `env`: the master's environment (default: this process's); `nodeArgs`: node's own options (a
   * profiler); `logLevel`: its `-l` (default info, whose start-up line tells that it is ready; a
   * quieter level needs `ready`, which resolves once the master serves).
   */
  async startMaster(
    options: { env?: NodeJS.ProcessEnv; nodeArgs?: string[]; logLevel?: string; ready?: (master: Daemon) => Promise<void> } = {},
  ): Promise<Daemon> {
    const args = [...(options.nodeArgs ?? []), ...binArgv('salt-master'), '-c', this.masterDir, '-l', options.logLevel ?? 'info'];
    this.master = new Daemon('master', spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: options.env }));
    await (options.ready ? options.ready(this.master) : this.master.waitFor('Setting up the master communication server'));
    return this.master;
  }

  /** Writes a minion's configuration under this cluster's root; returns its config directory. */
  writeMinionConfig(spec: MinionSpec): string {
    const dir = this.minionDir(spec.name ?? spec.id);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'minion'),
      stringify({
        root_dir: join(this.root, 'minions', spec.name ?? spec.id),
        id: spec.id,
        master: '127.0.0.1',
        master_port: this.retPort,
        acceptance_wait_time: 1,
        // Salt's default spreads re-sign-ins after a master restart over 10 s; tests need no herd.
        random_reauth_delay: 0,
        keysize: 1024,
        grains: spec.grains ?? {},
        ...spec.config,
      }),
    );
    return dir;
  }

  /** Writes the minion's config and starts it; resolves once it has printed `until`. */
  async startMinion(spec: MinionSpec, until: string | RegExp = /cached the public key|is ready/): Promise<Daemon> {
    const dir = this.writeMinionConfig(spec);
    const daemon = new Daemon(
      spec.name ?? spec.id,
      spawn(process.execPath, [...binArgv('salt-minion'), '-c', dir, '-l', 'info'], { stdio: ['ignore', 'pipe', 'pipe'], cwd: spec.cwd }),
    );
    this.minions.set(spec.name ?? spec.id, daemon);
    await daemon.waitFor(until);
    return daemon;
  }

  /** Runs a CLI command (salt, salt-key, salt-run, salt-call) against this master. */
  run(bin: string, args: string[], configDir = this.masterDir): Promise<RunResult> {
    return new Promise((res) => {
      const child = spawn(process.execPath, [...binArgv(bin), '-c', configDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('exit', (code) => res({ code: code ?? 1, stdout, stderr }));
    });
  }

  salt(...args: string[]): Promise<RunResult> {
    return this.run('salt', args);
  }

  saltKey(...args: string[]): Promise<RunResult> {
    return this.run('salt-key', args);
  }

  /** Starts the minions, accepts their keys and waits until each is signed in and subscribed. */
  async startAccepted(specs: MinionSpec[]): Promise<void> {
    await Promise.all(specs.map((s) => this.startMinion(s)));
    const accepted = await this.saltKey('-A', '-y');
    if (accepted.code !== 0) throw new Error(`salt-key -A failed: ${accepted.stderr}`);
    await Promise.all(specs.map((s) => this.minions.get(s.id)!.waitFor('is ready')));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.minions.values()].map((m) => m.stop()));
    await this.master?.stop();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * Resolves once the file at `path` contains `text` (a daemon's log file when it runs in the
 * background): watches its directory, no polling. Rejects after timeoutMs with what it holds.
 */
export function waitForFileText(path: string, text: string | RegExp, timeoutMs = 20_000): Promise<string> {
  const read = (): string => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return '';
    }
  };
  const has = (s: string) => (typeof text === 'string' ? s.includes(text) : text.test(s));
  mkdirSync(dirname(path), { recursive: true });
  return new Promise((resolvePromise, reject) => {
    const watcher = watch(dirname(path), () => check());
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`no "${text}" in ${path} within ${timeoutMs} ms. It holds:\n${read()}`));
    }, timeoutMs);
    const check = () => {
      const now = read();
      if (!has(now)) return;
      clearTimeout(timer);
      watcher.close();
      resolvePromise(now);
    };
    check();
  });
}
