/**
 * The transport of the commands that run beside a master (salt, salt-run, salt-key, salt-cp,
 * salt-api): requests to its request port through the ZMTP client in plain Node, and its event
 * bus and intake on their Unix sockets. None of it loads libzmq (see zmtp-request.ts for why).
 */
import { StreamEventPusher, StreamEventSubscriber } from './event-socket';
import type { Transport } from './types';
import { ZmtpRequestClient } from './zmtp-request';

/** What a client of a master needs of a transport; the in-memory transport has it too. */
export type ClientTransport = Pick<Transport, 'requestClient' | 'eventSubscriber' | 'eventPusher'>;

export const clientTransport: ClientTransport = {
  requestClient: (address, options) => new ZmtpRequestClient(address, options),
  eventSubscriber: (address, prefixes) => new StreamEventSubscriber(address, prefixes),
  eventPusher: (address) => new StreamEventPusher(address),
};
