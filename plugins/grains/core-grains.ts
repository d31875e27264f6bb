import { BRINE_VERSION, GrainsProvider, IConfig, IHost, inject, SALT_VERSION, SALT_VERSION_INFO, zmqVersion } from 'brine/plugin';
import { linuxDistributionGrains, osArch, osReleaseData } from './os-data';
import { parseLsbRelease, parseOsRelease } from './os-release';

type Grains = Record<string, unknown>;

/**
 * Salt's core grains for Linux hosts: identity, OS, kernel, CPU, memory, addresses, machine id,
 * virtualization. Files are read through IHost, so a fixture root stands in for `/` in tests.
 */
@GrainsProvider('core')
export class CoreGrains {
  constructor(
    @inject(IHost) private readonly host: IHost,
    @inject(IConfig) private readonly config: IConfig,
  ) {}

  async collect(): Promise<Grains> {
    const fqdn = this.host.hostname();
    const short = fqdn.split('.')[0];
    const grains: Grains = {
      id: this.config.get('id', fqdn),
      master: this.config.get('master', 'salt'),
      host: short,
      localhost: fqdn,
      nodename: fqdn,
      fqdn,
      domain: fqdn.includes('.') ? fqdn.slice(fqdn.indexOf('.') + 1) : '',
      kernel: this.host.kernel(),
      kernelrelease: this.host.kernelRelease(),
      kernelversion: this.host.kernelVersion(),
      cpuarch: this.host.machine(),
      shell: this.host.env('SHELL') ?? '/bin/sh',
      path: this.host.env('PATH') ?? '',
      saltversion: SALT_VERSION,
      saltversioninfo: [...SALT_VERSION_INFO],
      brineversion: BRINE_VERSION,
      zmqversion: await zmqVersion(),
    };
    Object.assign(grains, await this.osGrains(String(grains.cpuarch)), await this.cpuGrains(), await this.memGrains());
    Object.assign(grains, this.ipGrains(), { machine_id: await this.machineId(), virtual: await this.virtual() });
    return grains;
  }

  private async osGrains(cpuarch: string): Promise<Grains> {
    const text = (await this.host.readFile('/etc/os-release')) ?? (await this.host.readFile('/usr/lib/os-release'));
    const lsb = await this.host.readFile('/etc/lsb-release');
    if (text === null && lsb === null) return { os: this.host.kernel(), os_family: this.host.kernel(), osarch: cpuarch };
    const osRelease = text === null ? null : parseOsRelease(text);
    const grains = linuxDistributionGrains({
      osRelease,
      lsbRelease: lsb === null ? {} : parseLsbRelease(lsb),
      distroRelease: await this.distroReleaseFile(osRelease?.ID),
    });
    grains.osarch = osArch(String(grains.os_family), cpuarch);
    const osrelease = String(grains.osrelease);
    if (osrelease) Object.assign(grains, osReleaseData(String(grains.os), String(grains.osfullname), osrelease));
    return grains;
  }

  /** The distribution's own release file, which the `distro` library reads for a missing codename. */
  private async distroReleaseFile(id: string | undefined): Promise<string | null> {
    const names = [...(id && /^[a-z0-9._-]+$/.test(id) ? [`/etc/${id}-release`] : []), '/etc/redhat-release', '/etc/system-release'];
    for (const name of names) {
      const text = await this.host.readFile(name);
      if (text !== null) return text.split('\n')[0];
    }
    return null;
  }

  private async cpuGrains(): Promise<Grains> {
    const models = this.host.cpuModels();
    const cpuinfo = (await this.host.readFile('/proc/cpuinfo')) ?? '';
    const modelLine = /^model name\s*:\s*(.*)$/m.exec(cpuinfo);
    const processors = cpuinfo.split('\n').filter((l) => /^processor\s*:/.test(l)).length;
    return {
      num_cpus: processors || models.length,
      cpu_model: modelLine ? modelLine[1].trim() : (models[0] ?? ''),
    };
  }

  private async memGrains(): Promise<Grains> {
    const meminfo = (await this.host.readFile('/proc/meminfo')) ?? '';
    const kib = (key: string): number => {
      const m = new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(meminfo);
      return m ? Number(m[1]) : 0;
    };
    // Salt reports MiB, rounded down.
    return { mem_total: Math.floor(kib('MemTotal') / 1024), swap_total: Math.floor(kib('SwapTotal') / 1024) };
  }

  private ipGrains(): Grains {
    const ipv4 = new Set<string>();
    const ipv6 = new Set<string>();
    for (const addrs of Object.values(this.host.networkInterfaces())) {
      for (const a of addrs) (a.family === 'IPv4' ? ipv4 : ipv6).add(a.address);
    }
    // Per-interface grains (ip_interfaces, hwaddr_interfaces, ...) come from SystemGrains.
    return { ipv4: [...ipv4].sort(), ipv6: [...ipv6].sort() };
  }

  private async machineId(): Promise<string> {
    const id = (await this.host.readFile('/etc/machine-id')) ?? (await this.host.readFile('/var/lib/dbus/machine-id'));
    return id?.trim() ?? '';
  }

  private async virtual(): Promise<string> {
    if ((await this.host.exists('/.dockerenv')) || (await this.host.exists('/run/.containerenv'))) return 'container';
    const cgroup = (await this.host.readFile('/proc/1/cgroup')) ?? '';
    if (/docker|lxc|kubepods|containerd/.test(cgroup)) return 'container';
    const product = ((await this.host.readFile('/sys/class/dmi/id/product_name')) ?? '').trim();
    if (/KVM|QEMU/i.test(product)) return 'kvm';
    if (/VirtualBox/i.test(product)) return 'VirtualBox';
    if (/VMware/i.test(product)) return 'VMware';
    return 'physical';
  }
}
