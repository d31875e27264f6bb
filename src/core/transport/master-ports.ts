/**
 * What serves the master's publish and request ports, the two every minion connects to (the
 * `zmq_ports` master setting): 'node', ZMTP in plain Node (zmtp-server.ts, the default), or
 * 'libzmq', ZeroMQ's own sockets (zeromq.ts), as before. Both speak the same protocol to the same
 * minions; they differ in what a connection costs (docs/scaling.md, "The master's ports on Node's
 * sockets").
 */
import { ConfigError } from '../errors';
import type { IPublishServer, IRequestServer, Transport } from './types';
import { PublishServer, RequestServer } from './zeromq';
import { ZmtpPublishServer } from './zmtp-publisher';
import { ZmtpRequestServer } from './zmtp-router';

export type MasterPorts = 'node' | 'libzmq';

/** zmq_ports, checked: `ConfigError BAD_CONFIG` for anything but 'node' or 'libzmq'. */
export function masterPorts(value: unknown): MasterPorts {
  if (value === undefined || value === null) return 'node';
  if (value === 'node' || value === 'libzmq') return value;
  throw new ConfigError('BAD_CONFIG', `zmq_ports must be 'node' or 'libzmq', not ${JSON.stringify(value)}`, {
    hint: "fix or remove 'zmq_ports' in the master config",
  });
}

type PublishOptions = Parameters<Transport['publishServer']>[0];
type RequestOptions = Parameters<Transport['requestServer']>[0];

export function publishServer(ports: MasterPorts, options: PublishOptions): IPublishServer {
  return ports === 'libzmq' ? new PublishServer(options) : new ZmtpPublishServer(options);
}

export function requestServer(ports: MasterPorts, options: RequestOptions): IRequestServer {
  return ports === 'libzmq' ? new RequestServer(options) : new ZmtpRequestServer(options);
}
