/**
 * The master's publish port in a process of its own, as Salt runs its publisher.
 *
 * Why: each minion holds two TCP connections to its master, one to the publish port and one to
 * the request port. In one process that is two file descriptors per minion, and where the hard
 * limit on open files is 20,000 a master could not serve 10,000 minions: libzmq, out of
 * descriptors, spins its I/O thread on the listening socket and accepts no one. Split as Salt
 * splits it, each process holds one descriptor per minion. The publisher's fan-out (one message
 * copied to every subscriber by libzmq's I/O thread) also moves off the master's cores' busiest
 * process.
 *
 * The parent sends each publication over Node's IPC channel, in order; the child (see
 * publish-process-child.ts) owns the PUB socket. A child that ends unexpectedly is started
 * again and bound to the same addresses (minions reconnect on their own, as after a master
 * restart); one that fails within `startGraceMs` of its start is not, and the error is reported.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TransportError, type TransportErrorCode } from '../errors';
import { typescriptEntryScript } from '../typescript-entry';
import type { IPublishServer } from './types';
import type { ZmqPorts } from './zmq-ports';

export interface ProcessPublishOptions {
  /** pub_hwm. */
  highWaterMark?: number;
  /** zmq_backlog. */
  backlog?: number;
  /** zmq_ports: what serves the port in the child (default 'node'). */
  ports?: ZmqPorts;
  /**
   * Told when the publish process ended unexpectedly, and whether it was started again; and of its
   * port's trouble taking connections (`OPEN_FILES`, `ACCEPT`: see ZmtpPortOptions.onWarning).
   */
  onError?: (err: TransportError) => void;
  /** A child that dies sooner than this (ms) after starting is not started again (default 5 s). */
  startGraceMs?: number;
}

/** A child that dies sooner than this after starting is not started again (it would only die again). */
const START_GRACE_MS = 5000;
/** How long close() waits for the child to free its ports before killing it. */
const CLOSE_WAIT_MS = 10_000;

type ChildMessage =
  | { type: 'ready' }
  | { type: 'bound'; id: number }
  | { type: 'failed'; id: number; code: TransportErrorCode; message: string; hint?: string }
  | { type: 'warning'; code: TransportErrorCode; message: string; hint?: string }
  | { type: 'closed' };

function startChild(options: ProcessPublishOptions): ChildProcess {
  const stdio: ['ignore', 'inherit', 'inherit', 'ipc'] = ['ignore', 'inherit', 'inherit', 'ipc'];
  // Options by environment: `node -e` (the sources' way in) has no argv slot of its own.
  const env = {
    ...process.env,
    BRINE_PUBLISHER_OPTIONS: JSON.stringify({ highWaterMark: options.highWaterMark, backlog: options.backlog, ports: options.ports }),
  };
  const compiled = join(__dirname, 'publish-process-child.js');
  if (existsSync(compiled)) return fork(compiled, [], { stdio, env, serialization: 'advanced', execArgv: PUBLISHER_NODE_FLAGS });
  const script = typescriptEntryScript(join(__dirname, 'publish-process-child.ts'));
  return spawn(process.execPath, [...PUBLISHER_NODE_FLAGS, '-e', script], { stdio, env, serialization: 'advanced' });
}

/**
 * V8's young generation held to 1 MiB in the publish process. A publication to 10,000 subscribers
 * leaves about 3 MiB of short-lived objects (a write request per subscriber), and with Node's
 * 16 MiB semi-spaces the process grew by 20-35 MiB while publishing; almost nothing there
 * survives a collection, so the smaller young generation costs no measurable CPU (9,000 raw
 * subscribers, 40 publications: 79-80 MiB against 96-106 MiB, 103-108 ms a fan-out against
 * 86-117). A V8 flag has to be given when the process starts.
 */
export const PUBLISHER_NODE_FLAGS = ['--max-semi-space-size=1'];

export class ProcessPublishServer implements IPublishServer {
  private child?: ChildProcess;
  private started?: Promise<void>;
  private startedAt = 0;
  private exited: Promise<void> = Promise.resolve();
  private readonly addresses: string[] = [];
  private readonly waits = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private nextId = 1;
  private closing = false;

  constructor(private readonly options: ProcessPublishOptions = {}) {}

  /** The publish process's pid while it runs (the benchmark adds its CPU and memory to the master's). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async bind(address: string): Promise<void> {
    await this.start();
    await this.ask((id) => ({ type: 'bind', id, address }));
    this.addresses.push(address);
  }

  publish(frames: Buffer[]): Promise<void> {
    const child = this.child;
    if (this.closing || !child?.connected) {
      return Promise.reject(new TransportError('CLOSED', 'the publish process is not running: the publication was not sent'));
    }
    // Exact-size copies: a Buffer is often a view of a larger pooled block.
    const message = { type: 'publish', frames: frames.map((f) => new Uint8Array(f)) };
    return new Promise((resolve, reject) => {
      child.send(message, (err) => {
        if (err)
          reject(new TransportError('TRANSPORT', `the publication could not reach the publish process: ${err.message}`, { cause: err }));
        else resolve();
      });
    });
  }

  /** Stops the publish process; resolves once it has freed its ports (or was killed). */
  async close(): Promise<void> {
    this.closing = true;
    const child = this.child;
    if (!child) return;
    if (child.connected) child.send({ type: 'close' });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS)));
    if ((await Promise.race([this.exited, late])) === 'late') {
      child.kill('SIGKILL'); // the kernel frees its ports
      await this.exited;
    }
    clearTimeout(timer);
  }

  private start(): Promise<void> {
    if (this.closing) return Promise.reject(new TransportError('CLOSED', 'the publish server is closed'));
    this.started ??= new Promise<void>((resolve, reject) => {
      const child = startChild(this.options);
      this.child = child;
      this.startedAt = Date.now();
      let ready = false;
      this.exited = new Promise((done) => child.once('exit', () => done()));
      child.on('message', (msg: ChildMessage) => {
        if (msg.type === 'ready') {
          ready = true;
          resolve();
        } else if (msg.type === 'bound' || msg.type === 'failed') {
          const wait = this.waits.get(msg.id);
          this.waits.delete(msg.id);
          if (msg.type === 'bound') wait?.resolve();
          else wait?.reject(new TransportError(msg.code, msg.message, { hint: msg.hint }));
        } else if (msg.type === 'warning') {
          this.options.onError?.(new TransportError(msg.code, msg.message, { hint: msg.hint }));
        }
      });
      // A spawn failure (no node binary, no memory) comes as 'error', maybe without 'exit'.
      child.once('error', (err) => this.ended(child, `could not run: ${err.message}`, ready, reject));
      child.once('exit', (code, signal) => this.ended(child, `ended (${signal ?? `exit code ${code}`})`, ready, reject));
    });
    return this.started;
  }

  private ended(child: ChildProcess, how: string, ready: boolean, rejectStart: (err: Error) => void): void {
    if (this.child !== child) return; // already handled ('error' and 'exit' both came)
    this.child = undefined;
    this.started = undefined;
    const err = new TransportError('TRANSPORT', `the master's publish process (pid ${child.pid ?? '?'}) ${how}`);
    for (const wait of this.waits.values()) wait.reject(err);
    this.waits.clear();
    if (!ready) rejectStart(err);
    if (this.closing) return;
    const again = ready && Date.now() - this.startedAt >= (this.options.startGraceMs ?? START_GRACE_MS);
    this.options.onError?.(
      new TransportError(
        'TRANSPORT',
        `${err.message}: ${again ? 'starting it again' : 'it failed soon after starting and is not started again'}`,
      ),
    );
    if (again) void this.rebind();
  }

  /** A new publish process on the addresses the last one held. */
  private async rebind(): Promise<void> {
    const addresses = this.addresses.splice(0);
    try {
      for (const address of addresses) await this.bind(address);
    } catch (err) {
      this.options.onError?.(
        new TransportError('TRANSPORT', `the publish process could not be started again: ${(err as Error).message}`, { cause: err }),
      );
    }
  }

  private ask(message: (id: number) => Record<string, unknown>): Promise<void> {
    const child = this.child;
    if (!child?.connected) return Promise.reject(new TransportError('CLOSED', 'the publish process is not running'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waits.set(id, { resolve, reject });
      child.send(message(id));
    });
  }
}
