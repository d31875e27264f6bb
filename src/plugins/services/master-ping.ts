/**
 * Salt's status.ping_master: one clear `{cmd: 'ping'}` request to a master's request port, on a
 * socket of its own (not the minion's session): true when the master answers in time.
 */
import { buildClearRequest } from '../../core/channel/clear';
import { lazyModule } from '../../core/lazy-module';

export async function pingMaster(host: string, port: number, timeoutMs: number): Promise<boolean> {
  // Loaded on use: most jobs never ping, and salt-call --local needs no ZeroMQ.
  const { zeromqTransport } = await lazyModule(
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    () => require('../../core/transport/zeromq.js') as typeof import('../../core/transport/zeromq.js'),
    () => import('../../core/transport/zeromq.js'),
  );
  const address = host.includes(':') ? `tcp://[${host}]:${port}` : `tcp://${host}:${port}`;
  const client = zeromqTransport.requestClient(address);
  try {
    await client.request(buildClearRequest({ cmd: 'ping' }), timeoutMs);
    return true;
  } catch {
    return false;
  } finally {
    client.close();
  }
}
