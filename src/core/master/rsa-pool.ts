/**
 * A small pool of worker threads for the master's per-request RSA work (rsa-jobs.ts), so that a
 * sign-in storm does not hold up publishing and return handling on the main thread. Each private
 * key operation costs ~0.5 ms; a thousand minions signing in at once used to block the event loop
 * for seconds.
 *
 * The master key goes to each worker once, as PEM, when it starts. A worker that dies fails its
 * jobs with `RSA_WORKER_FAILED` (the request handler answers those "bad load", so no request
 * hangs), is reported, and is replaced.
 */
import { MasterError, type MasterErrorCode } from './master-errors';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { BrineError } from '../errors';
import { typescriptEntryScript } from '../typescript-entry';
import { asBuffer, type RsaJob, type RsaJobResult } from './rsa-jobs';

export interface RsaWorkerData {
  masterPrivatePem: string;
}

/** The master's request path hands its RSA work to this; RsaPool is the implementation. */
export interface MasterRsa {
  run(job: RsaJob): Promise<RsaJobResult>;
}

export interface RsaPoolOptions {
  /** Threads; defaults to the number of cores (at least 1). */
  size?: number;
  /** Called when a worker dies (it is replaced). */
  onWorkerError?: (err: BrineError) => void;
  /** How a worker thread is started; the default runs rsa-worker. Tests inject failing ones. */
  startWorker?: (data: RsaWorkerData) => Worker;
}

interface Pending {
  resolve: (result: RsaJobResult) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
  ready: boolean;
}

/**
 * Starts rsa-worker: the compiled .js beside this file, or, when running from the TypeScript
 * sources (vitest), the .ts through a require hook that transpiles with the typescript package.
 */
export function startRsaWorker(data: RsaWorkerData): Worker {
  const compiled = join(__dirname, 'rsa-worker.js');
  if (existsSync(compiled)) return new Worker(compiled, { workerData: data });
  return new Worker(typescriptEntryScript(join(__dirname, 'rsa-worker.ts')), { eval: true, workerData: data });
}

/**
 * The job with its byte fields as exact-size copies: a Buffer is often a view of Node's 8 KiB
 * pool, and postMessage would clone the whole pool slab for each.
 */
function exactCopies(job: RsaJob): RsaJob {
  if (job.op !== 'authReply' || job.kind !== 'accepted') return job;
  const copy = { ...job, aesSig: new Uint8Array(job.aesSig) as Buffer };
  if (job.encryptedToken !== undefined) copy.encryptedToken = new Uint8Array(job.encryptedToken) as Buffer;
  return copy;
}

export class RsaPool implements MasterRsa {
  private readonly slots: Slot[] = [];
  private readonly size: number;
  private readonly startWorker: (data: RsaWorkerData) => Worker;
  private nextId = 1;
  private closed = false;
  private readyWaiters: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];

  constructor(
    private readonly data: RsaWorkerData,
    private readonly options: RsaPoolOptions = {},
  ) {
    const size = options.size ?? availableParallelism();
    if (!Number.isInteger(size) || size < 1) {
      throw new MasterError('BAD_POOL_SIZE', `RSA pool: size must be a whole number of threads >= 1, not ${size}`);
    }
    this.size = size;
    this.startWorker = options.startWorker ?? startRsaWorker;
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  get threads(): number {
    return this.size;
  }

  /** Resolves once every worker has loaded the key; rejects if one dies before that. */
  ready(): Promise<void> {
    if (this.slots.every((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  run(job: RsaJob): Promise<RsaJobResult> {
    if (this.closed) return Promise.reject(new MasterError('RSA_POOL_CLOSED', 'RSA pool: closed, the master is stopping'));
    // The least busy worker; ties go to the first.
    const slot = this.slots.reduce((best, s) => (s.pending.size < best.pending.size ? s : best));
    const id = this.nextId++;
    return new Promise<RsaJobResult>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      try {
        slot.worker.postMessage({ id, job: exactCopies(job) });
      } catch (err) {
        slot.pending.delete(id);
        reject(
          new MasterError('RSA_JOB_FAILED', `RSA pool: the job cannot be sent to a worker: ${(err as Error).message}`, { cause: err }),
        );
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots.splice(0);
    for (const slot of slots) this.failAll(slot, new MasterError('RSA_POOL_CLOSED', 'RSA pool: closed, the master is stopping'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = this.startWorker(this.data);
    const slot: Slot = { worker, pending: new Map(), ready: false };
    let failure: Error | undefined;
    worker.on('message', (msg: { id?: number; ready?: boolean; result?: RsaJobResult; error?: { code: string; message: string } }) => {
      if (msg.ready) {
        slot.ready = true;
        if (this.slots.every((s) => s.ready)) this.readyWaiters.splice(0).forEach((w) => w.resolve());
        return;
      }
      const pending = msg.id === undefined ? undefined : slot.pending.get(msg.id);
      if (!pending) return;
      slot.pending.delete(msg.id!);
      if (msg.error) pending.reject(new MasterError(msg.error.code as MasterErrorCode, `RSA job failed: ${msg.error.message}`));
      else pending.resolve({ ...msg.result!, reply: asBuffer(msg.result!.reply) });
    });
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      if (this.closed) return;
      const err = new MasterError(
        'RSA_WORKER_FAILED',
        `RSA worker thread ${worker.threadId} ended (exit code ${code})${failure ? `: ${failure.message}` : ''}`,
        {
          cause: failure,
          hint: slot.ready
            ? 'it was replaced; the requests it held were answered "bad load" and the minions retry'
            : 'the master key could not be loaded in a worker thread',
        },
      );
      this.failAll(slot, err);
      this.options.onWorkerError?.(err);
      const index = this.slots.indexOf(slot);
      if (index < 0) return;
      if (!slot.ready) {
        // Died before loading the key: another would die the same way. Give up loudly.
        this.slots.splice(index, 1);
        this.readyWaiters.splice(0).forEach((w) => w.reject(err));
        if (this.slots.length === 0) this.closed = true;
        return;
      }
      this.slots[index] = this.spawn();
    });
    return slot;
  }

  private failAll(slot: Slot, err: Error): void {
    for (const p of slot.pending.values()) p.reject(err);
    slot.pending.clear();
  }
}
