/** zmq_ports, as both daemons read it: what it accepts, what it refuses, and what it makes. */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors';
import { createLogging } from '../../../src/core/log';
import { MinionChannel } from '../../../src/core/minion/channel-client';
import { nodeTransport, transportFor, zmqPorts } from '../../../src/core/transport/zmq-ports';
import { zeromqTransport } from '../../../src/core/transport/zeromq';

describe('zmq_ports', () => {
  it("takes 'node' (also when unset) and 'libzmq', and makes the transport it names", () => {
    expect([undefined, null, 'node', 'libzmq'].map((v) => zmqPorts(v, 'minion'))).toEqual(['node', 'node', 'node', 'libzmq']);
    expect(transportFor('node')).toBe(nodeTransport);
    expect(transportFor('libzmq')).toBe(zeromqTransport);
  });

  it("refuses anything else with one line naming the daemon's config, before a minion opens a socket", () => {
    expect(() => zmqPorts('zeromq', 'master')).toThrow(ConfigError);
    expect(() => zmqPorts(1, 'master')).toThrow(/zmq_ports must be 'node' or 'libzmq', not 1/);
    const log = createLogging({ level: 'critical', console: false }).getLogger('test');
    const make = () =>
      new MinionChannel(
        {
          id: 'm1',
          master: '127.0.0.1',
          master_port: 4506,
          pki_dir: '/nonexistent',
          keysize: 2048,
          acceptance_wait_time: 10,
          auth_timeout: 5,
          recon_default: 1000,
          recon_max: 10000,
          zmq_ports: 'bogus',
        },
        log,
      );
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(expect.objectContaining({ hint: "fix or remove 'zmq_ports' in the minion config" }));
  });
});
