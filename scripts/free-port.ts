import { createServer } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that was free a moment ago. For the demo, the tests and the bench, which
 * start servers of their own on loopback.
 *
 * Outside vitest the OS picks it (`listen(0)`, from its ephemeral range). In a vitest worker
 * (VITEST_POOL_ID) the port comes from that worker's own block below the ephemeral range, which
 * neither another worker nor any `listen(0)` or outgoing connection is ever given: two test files
 * running at once were once handed the same ephemeral port, and one master found its `ret_port`
 * held by the other's publish process. Each candidate is checked by binding it.
 */
export async function freePort(): Promise<number> {
  const pool = Number(process.env.VITEST_POOL_ID);
  if (!Number.isInteger(pool) || pool < 1) return listenOn(0);
  const first = POOL_PORTS_FROM + ((pool - 1) % POOLS) * PORTS_PER_POOL;
  for (let tries = 0; tries < PORTS_PER_POOL; tries++) {
    const port = first + (next++ % PORTS_PER_POOL);
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
let next = 0;

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
