import { describe, expect, it } from 'vitest';
import { BRINE_VERSION } from 'brine/plugin';
import { version as zmqLibVersion } from 'zeromq';
import { CoreGrains } from '../../../plugins/grains/core-grains';
import { PluginLoader } from '../../../src/plugins/loader/loader';
import { StaticConfig } from '../../../src/plugins/services/config';
import { NodeHost } from '../../../src/plugins/services/host';
import { StreamLogger } from '../../../src/plugins/services/logger';
import { fixture } from '../fixtures';

/** The Debian 12 container of SALT-REFERENCE.md, with its files under a fixture root. */
class FixtureHost extends NodeHost {
  constructor() {
    super(fixture('roots', 'debian12'));
  }
  override hostname(): string {
    return 'vm';
  }
  override kernel(): string {
    return 'Linux';
  }
  override kernelRelease(): string {
    return '6.1.0-18-amd64';
  }
  override machine(): string {
    return 'x86_64';
  }
  override cpuModels(): string[] {
    return ['Intel(R) Xeon(R) CPU @ 2.20GHz', 'Intel(R) Xeon(R) CPU @ 2.20GHz'];
  }
  override networkInterfaces() {
    return {
      lo: [
        { address: '127.0.0.1', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true },
        { address: '::1', family: 'IPv6' as const, mac: '00:00:00:00:00:00', internal: true },
      ],
      eth0: [{ address: '192.0.2.2', family: 'IPv4' as const, mac: '02:42:c0:00:02:02', internal: false }],
    };
  }
  override env(name: string): string | undefined {
    return { SHELL: '/bin/bash', PATH: '/usr/local/bin:/usr/bin:/bin' }[name];
  }
}

describe('core grains', () => {
  it('match Salt 3007 on Debian 12', async () => {
    const grains = await new CoreGrains(new FixtureHost(), new StaticConfig({ id: 'web1', master: '127.0.0.1' })).collect();
    expect(grains).toMatchObject({
      id: 'web1',
      master: '127.0.0.1',
      host: 'vm',
      fqdn: 'vm',
      nodename: 'vm',
      localhost: 'vm',
      domain: '',
      os: 'Debian',
      os_family: 'Debian',
      osrelease: '12',
      osrelease_info: [12],
      osmajorrelease: 12,
      oscodename: 'bookworm',
      osfullname: 'Debian GNU/Linux',
      osfinger: 'Debian-12',
      osarch: 'amd64',
      kernel: 'Linux',
      kernelrelease: '6.1.0-18-amd64',
      cpuarch: 'x86_64',
      num_cpus: 2,
      cpu_model: 'Intel(R) Xeon(R) CPU @ 2.20GHz',
      mem_total: 24105,
      swap_total: 2047,
      ipv4: ['127.0.0.1', '192.0.2.2'],
      ipv6: ['::1'],
      machine_id: '4f1c2a9e8b7d6c5e4f3a2b1c0d9e8f7a',
      virtual: 'container',
      shell: '/bin/bash',
      path: '/usr/local/bin:/usr/bin:/bin',
      saltversion: '3007.10',
      saltversioninfo: [3007, 10],
      brineversion: BRINE_VERSION,
      // libzmq's own version, as pyzmq's zmq.zmq_version() gives it to Salt: the constant brine reports
      // must be the release zeromq.js bundles.
      zmqversion: zmqLibVersion,
    });
  });

  it('an fqdn host name gives host and domain; a missing os-release falls back to the kernel', async () => {
    class Bare extends FixtureHost {
      override hostname(): string {
        return 'web1.example.org';
      }
      override async readFile(): Promise<string | null> {
        return null;
      }
      override async exists(): Promise<boolean> {
        return false;
      }
    }
    const grains = await new CoreGrains(new Bare(), new StaticConfig({})).collect();
    expect(grains).toMatchObject({
      host: 'web1',
      fqdn: 'web1.example.org',
      domain: 'example.org',
      id: 'web1.example.org',
      os: 'Linux',
      virtual: 'physical',
      mem_total: 0,
    });
  });

  it('static grains from the config override core grains when loaded by the loader', async () => {
    const plugins = await new PluginLoader({
      config: new StaticConfig({ id: 'web1', grains: { os: 'Custom', role: 'web' } }),
      host: new FixtureHost(),
      logger: new StreamLogger('error', () => undefined),
      builtins: [CoreGrains],
      moduleDirs: [],
    }).load();
    expect(plugins.grains.get('os')).toBe('Custom');
    expect(plugins.grains.get('role')).toBe('web');
    expect(plugins.grains.get('oscodename')).toBe('bookworm');
  });
});
