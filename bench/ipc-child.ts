/**
 * A forked helper process of the benchmark (the baseline server, the job client) driven over
 * Node's IPC channel. Messages are objects with a `type`; {type: 'error', message} from the child,
 * or its exit, fails every wait.
 */
import { BenchError } from './bench-error';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { BrineError } from '../src/core/errors';

export type ChildMessage = { type: string; [field: string]: unknown };

export class IpcChild {
  private readonly child;
  private readonly waiters = new Map<string, (msg: ChildMessage | null) => void>();
  private failure?: BrineError;
  readonly exited: Promise<number>;

  /** Forks dist/bench/<script>.js; `keyOf` names a message so that waitFor can find it. */
  constructor(
    private readonly name: string,
    script: string,
    args: string[],
    private readonly keyOf: (msg: ChildMessage) => string = (msg) => msg.type,
    execArgv: string[] = [],
  ) {
    this.child = fork(join(__dirname, `${script}.js`), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    this.exited = new Promise((resolve) => this.child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 0))));
    this.child.on('message', (msg: ChildMessage) => {
      if (msg.type === 'error') {
        this.failure = new BenchError('BENCH_CHILD', `${name}: ${String(msg.message)}`);
        for (const wake of [...this.waiters.values()]) wake(null);
        return;
      }
      this.waiters.get(this.keyOf(msg))?.(msg);
    });
    void this.exited.then((code) => {
      this.failure ??= new BenchError('BENCH_CHILD', `${name} exited with code ${code}`);
      for (const wake of [...this.waiters.values()]) wake(null);
    });
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new BenchError('BENCH_CHILD', `${this.name} did not start`);
    return this.child.pid;
  }

  /** The message named `key`, or null after timeoutMs; throws if the child failed or exited. */
  waitFor(key: string, timeoutMs: number): Promise<ChildMessage | null> {
    return new Promise((resolve, reject) => {
      const finish = (msg: ChildMessage | null) => {
        clearTimeout(timer);
        this.waiters.delete(key);
        if (this.failure) reject(this.failure);
        else resolve(msg);
      };
      const timer = setTimeout(() => finish(null), timeoutMs);
      this.waiters.set(key, finish);
    });
  }

  /** Like waitFor, but a timeout is an error naming `what`. */
  async expect(key: string, timeoutMs: number, what: string): Promise<ChildMessage> {
    const msg = await this.waitFor(key, timeoutMs);
    if (!msg) throw new BenchError('BENCH_CHILD', `${this.name}: ${what} within ${Math.round(timeoutMs / 1000)} s`);
    return msg;
  }

  send(message: Record<string, unknown>): void {
    this.child.send(message);
  }

  /** Asks the child to stop itself ({type: 'stop'}) if it still runs; see `exited`. */
  stopGracefully(): void {
    if (this.child.connected && this.child.exitCode === null) this.child.send({ type: 'stop' });
  }

  /** SIGTERM by pid, then wait for the exit. */
  async stop(): Promise<void> {
    if (this.child.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null)
      process.kill(this.child.pid, 'SIGTERM');
    await this.exited;
  }
}
