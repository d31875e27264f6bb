/**
 * What speaks ZeroMQ on the two ports every minion connects to (the `zmq_ports` setting of the
 * master and of the minion): 'node', ZMTP in plain Node (the default: the master's ports in
 * zmtp-router.ts and zmtp-publisher.ts, the minion's connections in zmtp-request.ts and
 * zmtp-subscriber.ts), or 'libzmq', ZeroMQ's own sockets (zeromq.ts), as before. Both speak the
 * same protocol to the same peers, Salt's included; they differ in what a connection costs
 * (docs/scaling.md). libzmq is loaded only when a socket of its own is made.
 */
import { ConfigError } from '../errors';
import { clientTransport } from './client-transport';
import { StreamEventPublisher, StreamEventPuller } from './event-socket';
import type { Transport } from './types';
import { ZmtpPublishServer } from './zmtp-publisher';
import { ZmtpRequestServer } from './zmtp-router';
import { ZmtpSubscribeClient } from './zmtp-subscriber';
import { zeromqTransport } from './zeromq';

export type ZmqPorts = 'node' | 'libzmq';

/** zmq_ports, checked: `ConfigError BAD_CONFIG` for anything but 'node' or 'libzmq'. */
export function zmqPorts(value: unknown, role: 'master' | 'minion'): ZmqPorts {
  if (value === undefined || value === null) return 'node';
  if (value === 'node' || value === 'libzmq') return value;
  throw new ConfigError('BAD_CONFIG', `zmq_ports must be 'node' or 'libzmq', not ${JSON.stringify(value)}`, {
    hint: `fix or remove 'zmq_ports' in the ${role} config`,
  });
}

/**
 * Every socket in plain Node: the ports and the connections to them over ZMTP, the event bus on
 * Unix stream sockets (event-socket.ts); the commands' clientTransport is the part of it they use. Node has no socket limit of its own (only the process's
 * open files), so raiseSocketLimit has nothing to raise.
 */
export const nodeTransport: Transport = {
  ...clientTransport,
  publishServer: (options) => new ZmtpPublishServer(options),
  subscribeClient: (options) => new ZmtpSubscribeClient(options),
  requestServer: (options) => new ZmtpRequestServer(options),
  eventPublisher: () => new StreamEventPublisher(),
  eventPuller: () => new StreamEventPuller(),
  raiseSocketLimit: () => undefined,
};

/** The transport zmq_ports names (zeromq.ts loads libzmq when its first socket is made). */
export function transportFor(ports: ZmqPorts): Transport {
  return ports === 'libzmq' ? zeromqTransport : nodeTransport;
}
