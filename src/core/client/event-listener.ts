import { eventBusAddress } from '../master/events';
import { clientTransport, type ClientTransport } from '../transport/client-transport';
import type { IEventSubscriber } from '../transport/types';

/**
 * A listener on the local master's event bus (`<sock_dir>/master_event_pub.ipc`) for the tags
 * starting with one of `prefixes` ('' for all): call `sync()` before relying on it.
 *
 * @example
 * const events = listenToMaster('/var/run/salt/master', ['salt/job/']);
 * await events.sync(5000);
 * const ev = await events.next(1000); // { tag, body } or null
 */
export function listenToMaster(sockDir: string, prefixes: string[], transport: ClientTransport = clientTransport): IEventSubscriber {
  return transport.eventSubscriber(eventBusAddress(sockDir), prefixes);
}
