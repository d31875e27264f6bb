import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { fakeShell } from 'brine/testing';
import { SystemGrains } from '../../../plugins/grains/system-grains';
import { StaticConfig } from '../../../src/plugins/services/config';
import { NodeHost } from '../../../src/plugins/services/host';
import { fixture } from '../fixtures';

/** The Debian 12 fixture root with the network, boot and block-device files these grains read. */
class FixtureHost extends NodeHost {
  constructor() {
    super(fixture('roots', 'debian12'));
  }
  override hostname(): string {
    return 'localhost';
  }
  override networkInterfaces() {
    return {
      lo: [
        { address: '127.0.0.1', family: 'IPv4' as const, mac: '00:00:00:00:00:00', internal: true },
        { address: '::1', family: 'IPv6' as const, mac: '00:00:00:00:00:00', internal: true },
      ],
      eth0: [
        { address: '192.0.2.2', family: 'IPv4' as const, mac: '02:42:c0:00:02:02', internal: false },
        { address: 'fd00::2', family: 'IPv6' as const, mac: '02:42:c0:00:02:02', internal: false },
      ],
    };
  }
  override env(name: string): string | undefined {
    return { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C.UTF-8' }[name];
  }
}

const SYSTEMCTL = 'systemd 252 (252.38-1~deb12u1)\n+PAM +AUDIT -BPF_FRAMEWORK\n';

/** `lspci -vmm` of a host with an Intel and an NVIDIA display device, a network card and an unknown vendor's VGA. */
const LSPCI = [
  'Slot:\t00:02.0',
  'Class:\tVGA compatible controller',
  'Vendor:\tIntel Corporation',
  'Device:\tAlder Lake-P GT2 [Iris Xe Graphics]',
  '',
  'Slot:\t00:1f.6',
  'Class:\tEthernet controller',
  'Vendor:\tIntel Corporation',
  'Device:\tEthernet Connection I219-LM',
  '',
  'Slot:\t01:00.0',
  'Class:\t3D controller',
  'Vendor:\tNVIDIA Corporation',
  'Device:\tGA107M [GeForce RTX 3050 Mobile]',
  '',
  'Slot:\t02:00.0',
  'Class:\tVGA compatible controller',
  'Vendor:\tSiliconMotion, Inc.',
  'Device:\tSM750',
].join('\n');

describe("gpus (Salt's _linux_gpu_data over lspci -vmm)", () => {
  const lspciShell = () =>
    fakeShell((cmd) => (Array.isArray(cmd) && cmd[0] === 'lspci' ? { stdout: LSPCI } : { retcode: 127 }), { lspci: '/usr/bin/lspci' });

  it("lists the display devices with Salt's vendor names, 'unknown' for the others", async () => {
    const g = await new SystemGrains(new FixtureHost(), new StaticConfig({ id: 'web1' }), lspciShell()).collect();
    expect(g).toMatchObject({
      num_gpus: 3,
      gpus: [
        { vendor: 'intel', model: 'Alder Lake-P GT2 [Iris Xe Graphics]' },
        { vendor: 'nvidia', model: 'GA107M [GeForce RTX 3050 Mobile]' },
        { vendor: 'unknown', model: 'SM750' },
      ],
    });
  });

  it('is empty with enable_gpu_grains or enable_lspci False, or without lspci', async () => {
    for (const config of [{ enable_gpu_grains: false }, { enable_lspci: false }]) {
      const g = await new SystemGrains(new FixtureHost(), new StaticConfig({ id: 'web1', ...config }), lspciShell()).collect();
      expect(g).toMatchObject({ gpus: [], num_gpus: 0 });
    }
    const without = fakeShell(() => ({ retcode: 127 }), {});
    expect(await new SystemGrains(new FixtureHost(), new StaticConfig({ id: 'web1' }), without).collect()).toMatchObject({
      gpus: [],
      num_gpus: 0,
    });
  });
});

describe('system grains (Salt 3007 core grains of a Linux host)', () => {
  it('interfaces (with and without addresses), gateways, dns, disks, cpu flags, kernel parameters, init, systemd', async () => {
    const shell = fakeShell((cmd) => (Array.isArray(cmd) && cmd[0] === 'systemctl' ? { stdout: SYSTEMCTL } : { retcode: 127 }), {
      systemctl: '/usr/bin/systemctl',
    });
    const g = await new SystemGrains(new FixtureHost(), new StaticConfig({ id: 'web1', master: 'salt.example' }), shell).collect();
    expect(g).toMatchObject({
      ip4_interfaces: { lo: ['127.0.0.1'], dummy0: [], eth0: ['192.0.2.2'] },
      ip6_interfaces: { lo: ['::1'], dummy0: [], eth0: ['fd00::2'] },
      ip_interfaces: { lo: ['127.0.0.1', '::1'], dummy0: [], eth0: ['192.0.2.2', 'fd00::2'] },
      hwaddr_interfaces: { lo: '00:00:00:00:00:00', dummy0: '96:1e:5a:3c:00:01', eth0: '02:42:c0:00:02:02' },
      ip4_gw: '192.0.2.1',
      ip6_gw: 'fd00::1',
      ip_gw: true,
      dns: {
        nameservers: ['10.0.0.53', 'fd00::53'],
        ip4_nameservers: ['10.0.0.53'],
        ip6_nameservers: ['fd00::53'],
        sortlist: [],
        domain: '',
        search: ['example.com', 'corp.example.com'],
        options: ['ndots:2'],
      },
      disks: ['vda'],
      ssds: ['nvme0n1'],
      cpu_flags: ['fpu', 'vme', 'de', 'pse', 'tsc', 'sse', 'sse2'],
      // Salt's own quirk: a value holding '=' splits into three parts and reads as None.
      kernelparams: [
        ['BOOT_IMAGE', '/boot/vmlinuz-6.1.0-18-amd64'],
        ['root', null],
        ['ro', null],
        ['quiet', null],
        ['console', 'ttyS0'],
      ],
      init: 'systemd',
      systemd: { version: '252', features: '+PAM +AUDIT -BPF_FRAMEWORK' },
      path: '/usr/local/bin:/usr/bin:/bin',
      systempath: ['/usr/local/bin', '/usr/bin', '/bin'],
      master: 'salt.example',
      ps: 'ps -efHww',
      efi: false,
      'efi-secure-boot': false,
      transactional: false,
      zfs_support: false,
      zfs_feature_flags: false,
      gpus: [],
      num_gpus: 0,
      locale_info: { defaultlanguage: 'en_US', defaultencoding: 'UTF-8', detectedencoding: 'utf-8' },
      pid: process.pid,
      cwd: process.cwd(),
      uid: process.getuid?.(),
    });
    expect(g.fqdn_ip4).toContain('127.0.0.1');
    expect(Array.isArray(g.fqdns)).toBe(true);
  });

  it("server_id is Salt's: sha256 of the id modulo 2**31 (Salt 3007.10 gives 196360289 for id 'ref')", async () => {
    const g = await new SystemGrains(
      new FixtureHost(),
      new StaticConfig({ id: 'ref' }),
      fakeShell(() => ({})),
    ).collect();
    expect(g.server_id).toBe(196360289);
    const id = 'web1';
    const expected = Number(BigInt(`0x${createHash('sha256').update(id).digest('hex')}`) % 2n ** 31n);
    expect(
      (
        await new SystemGrains(
          new FixtureHost(),
          new StaticConfig({ id }),
          fakeShell(() => ({})),
        ).collect()
      ).server_id,
    ).toBe(expected);
  });
});
