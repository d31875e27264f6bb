/**
 * Entry of one RSA worker thread (see rsa-pool.ts). It gets the master's private key once, as PEM
 * in workerData, and then answers `{ id, job }` messages with `{ id, result }` or `{ id, error }`.
 */
import { MasterError } from './master-errors';
import { parentPort, workerData } from 'node:worker_threads';
import { privateKeyFromPem } from '../crypto/rsa';
import { BrineError } from '../errors';
import { runRsaJob, type RsaJob } from './rsa-jobs';

interface WorkerInput {
  masterPrivatePem: string;
}

if (!parentPort) throw new MasterError('NOT_A_WORKER', 'rsa-worker must be started as a worker thread by RsaPool');
const port = parentPort;
const masterKey = privateKeyFromPem((workerData as WorkerInput).masterPrivatePem);

port.on('message', (msg: { id: number; job: RsaJob }) => {
  try {
    const { reply, tokenUnreadable } = runRsaJob(masterKey, msg.job);
    // An exact-size copy, handed over rather than cloned: a Buffer may be a view of a much larger
    // pooled ArrayBuffer, and postMessage would copy all of it.
    const bytes = new Uint8Array(reply);
    port.postMessage({ id: msg.id, result: tokenUnreadable ? { reply: bytes, tokenUnreadable } : { reply: bytes } }, [bytes.buffer]);
  } catch (err) {
    const e = err as Error & { code?: unknown };
    port.postMessage({
      id: msg.id,
      error: { code: typeof e?.code === 'string' ? e.code : 'RSA_JOB_FAILED', message: String(e?.message ?? err) },
    });
  }
});
// Tells the pool that the key loaded and jobs can be sent.
port.postMessage({ ready: true });
