import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. For the demo, the tests and the bench, which
 * start servers of their own on loopback.
 *
 * Outside vitest the OS picks it (`listen(0)`, from its ephemeral range). In a vitest worker
 * (VITEST_POOL_ID) the port comes from that worker's own block below the ephemeral range, which
 * neither another worker nor any `listen(0)` or outgoing connection is ever given: two test files
 * running at once were once handed the same ephemeral port, and one master found its `ret_port`
 * held by the other's publish process. Each candidate is checked by binding it.
 *
 * The files a worker runs one after another go on through its block where the last one stopped
 * (a counter in BRINE_TEST_PORTS, the run's folder that test/global-setup.ts makes): a daemon
 * left over from an earlier file, whose clean-up timed out, must not meet a later file's daemons
 * on the same port (a Salt minion of one file signed in to another file's master, with a second
 * key for the same id).
 */
export async function freePort(): Promise<number> {
  const pool = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(pool) || pool < 1) return listenOn(0);
  const first = POOL_PORTS_FROM + ((pool - 1) % POOLS) * PORTS_PER_POOL;
  const counter = process.env.BRINE_TEST_PORTS ? join(process.env.BRINE_TEST_PORTS, `pool-${pool}`) : undefined;
  // A child process of the test (the demo, a bench) shares the worker's counter: the larger wins.
  if (counter) next = Math.max(next, readCounter(counter));
  for (let tries = 0; tries < PORTS_PER_POOL; tries++) {
    const port = first + (next++ % PORTS_PER_POOL);
    if (counter) writeFileSync(counter, String(next));
    try {
      return await listenOn(port);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
  throw new Error(`no free port in ${first}-${first + PORTS_PER_POOL - 1} for vitest worker ${pool}`);
}

/** Below Linux's default ephemeral range (32768-60999): 20 blocks of 1,000 from 12000. */
const POOL_PORTS_FROM = 12_000;
const PORTS_PER_POOL = 1_000;
const POOLS = 20;
/** How many ports of the block this worker has handed out (the next one's place, modulo its size). */
let next = 0;

function readCounter(file: string): number {
  try {
    const n = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(n) && n >= 0 ? n : 0;
  } catch {
    return 0; // the worker's first file
  }
}

/** Binds `port` (0: any) on 127.0.0.1, closes it, and resolves with the port it got. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
