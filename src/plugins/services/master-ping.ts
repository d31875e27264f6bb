/**
 * Salt's status.ping_master: one clear `{cmd: 'ping'}` request to a master's request port, on a
 * connection of its own (not the minion's session): true when the master answers in time.
 */
import { buildClearRequest } from '../../core/channel/clear';
import { ZmtpRequestClient } from '../../core/transport/zmtp-request';

export async function pingMaster(host: string, port: number, timeoutMs: number): Promise<boolean> {
  // The plain-Node client: one request needs no libzmq (salt-call --local loads none).
  const address = host.includes(':') ? `tcp://[${host}]:${port}` : `tcp://${host}:${port}`;
  let client: ZmtpRequestClient | undefined;
  try {
    // An address it cannot use (a `master` that is no host) answers false, as Salt's does.
    client = new ZmtpRequestClient(address);
    await client.request(buildClearRequest({ cmd: 'ping' }), timeoutMs);
    return true;
  } catch {
    return false;
  } finally {
    client?.close();
  }
}
