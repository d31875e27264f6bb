/**
 * A process's resident memory as the memory-bound tests read it (the bench reads the same /proc
 * figure through bench/procfs.ts).
 */
import { rssMiB } from '../../bench/procfs';

/**
 * The RSS in MiB once it has stopped moving: read every 200 ms until two readings in a row
 * differ by less than 0.5 MiB (at most 10 s; then the last reading). A measurement, not a wait
 * for an event: memory settles with no event to wait on.
 */
export async function settledRssMiB(pid: number): Promise<number> {
  let last = rssMiB(pid);
  for (let i = 0; i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = rssMiB(pid);
    if (Math.abs(now - last) < 0.5) return now;
    last = now;
  }
  return last;
}
