import { createHash } from 'node:crypto';
import { lookup, lookupService } from 'node:dns/promises';
import { GrainsProvider, IConfig, IHost, IShell, formatIp, inject, localZoneAt, shlexSplit, userById, groupById } from 'brine/plugin';

type Grains = Record<string, unknown>;

/** Salt's known GPU vendors, matched against the words of lspci's Vendor field. */
const GPU_VENDORS = ['nvidia', 'amd', 'ati', 'intel', 'cirrus logic', 'vmware', 'matrox', 'aspeed'];
/** lspci's classes of display devices. */
const GPU_CLASSES = ['vga compatible controller', '3d controller', 'display controller'];

/** /proc/net/route's little-endian hex IPv4 address. */
function hexIPv4(hex: string): string {
  return [6, 4, 2, 0].map((i) => parseInt(hex.slice(i, i + 2), 16)).join('.');
}

/** /proc/net/ipv6_route's 32 hex digits as Python's compressed IPv6 text. */
function hexIPv6(hex: string): string {
  return formatIp({ version: 6, value: BigInt(`0x${hex}`) });
}

/** Python's locale.getlocale() for the environment's LC_ALL/LC_CTYPE/LANG. */
function pythonLocale(value: string | undefined): [string | null, string | null] {
  if (!value || value === 'C' || value === 'POSIX') return [null, null];
  const [lang, enc] = value.split('@')[0].split('.');
  // Python's alias table maps C.UTF-8 to en_US.UTF-8.
  const language = lang === 'C' ? 'en_US' : lang;
  const encoding = enc ? (/^utf-?8$/i.test(enc) ? 'UTF-8' : enc.toUpperCase()) : null;
  return [language, encoding];
}

/**
 * The Salt core grains about the process, network configuration, boot and hardware that a Linux
 * minion reports: user and group of the minion, init system, interfaces (all of them, with and
 * without addresses), gateways, resolver, disks, CPU flags, kernel parameters, locale, server_id.
 */
@GrainsProvider('system')
export class SystemGrains {
  constructor(
    @inject(IHost) private readonly host: IHost,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IShell) private readonly shell: IShell,
  ) {}

  async collect(): Promise<Grains> {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    const path = (this.host.env('PATH') ?? '').trim();
    const id = String(this.config.get('id', ''));
    const grains: Grains = {
      uid,
      gid,
      username: userById(uid)?.name ?? String(uid),
      groupname: groupById(gid)?.name ?? String(gid),
      pid: process.pid,
      cwd: process.cwd(),
      path,
      systempath: path.split(':'),
      ps: 'ps -efHww',
      master: this.config.get('master', 'salt'),
      // Salt's get_server_id: the id's sha256 as an integer, modulo 2**31.
      server_id: Number(BigInt(`0x${createHash('sha256').update(id).digest('hex')}`) % 2n ** 31n),
      init: await this.init(),
      efi: await this.host.exists('/sys/firmware/efi/systab'),
      'efi-secure-boot': false,
      transactional: (await this.shell.which('transactional-update')) !== null,
      zfs_support: (await this.host.exists('/dev/zfs')) && (await this.shell.which('zfs')) !== null,
      zfs_feature_flags: false,
      ...(await this.gpus()),
      locale_info: this.localeInfo(),
    };
    const systemd = await this.systemd();
    if (systemd) grains.systemd = systemd;
    Object.assign(grains, await this.interfaces(), await this.gateways(), await this.disks(), await this.fqdnIps());
    const dns = await this.dns();
    if (dns) grains.dns = dns;
    const cpuinfo = (await this.host.readFile('/proc/cpuinfo')) ?? '';
    const flags = /^(?:flags|Features)\s*:\s*(.*)$/m.exec(cpuinfo);
    grains.cpu_flags = flags ? flags[1].trim().split(/\s+/) : [];
    const cmdline = await this.host.readFile('/proc/cmdline');
    if (cmdline !== null) {
      grains.kernelparams = shlexSplit(cmdline).map((item) => {
        const parts = item.split('=');
        return [parts[0], parts.length === 2 ? parts[1].replace(/^"+|"+$/g, '') : null];
      });
    }
    const subtype = await this.virtualSubtype();
    if (subtype) grains.virtual_subtype = subtype;
    return grains;
  }

  /**
   * Salt's _linux_gpu_data: the display devices `lspci -vmm` lists, each as {vendor, model} with
   * the vendor one of Salt's known names (else 'unknown'). Off with enable_gpu_grains (or
   * enable_lspci) False, and empty without lspci, as Salt's.
   */
  private async gpus(): Promise<{ gpus: Array<{ vendor: string; model: string }>; num_gpus: number }> {
    const none = { gpus: [], num_gpus: 0 };
    if (this.config.get<unknown>('enable_lspci', true) === false || this.config.get<unknown>('enable_gpu_grains', true) === false)
      return none;
    if ((await this.shell.which('lspci')) === null) return none;
    const res = await this.shell.run(['lspci', '-vmm'], { pythonShell: false });
    if (res.retcode !== 0) return none;
    const gpus: Array<{ vendor: string; model: string }> = [];
    let device: Record<string, string> = {};
    for (const line of [...res.stdout.split('\n'), '']) {
      if (line === '') {
        if (GPU_CLASSES.includes((device.Class ?? '').toLowerCase())) {
          const words = (device.Vendor ?? '').toLowerCase().split(/[^a-z0-9]/);
          gpus.push({ vendor: GPU_VENDORS.find((v) => words.includes(v)) ?? 'unknown', model: device.Device ?? '' });
        }
        device = {};
      } else if (/^\w+:\s+/.test(line)) {
        const at = line.indexOf(':');
        device[line.slice(0, at).trim()] = line.slice(at + 1).trim();
      }
    }
    return { gpus, num_gpus: gpus.length };
  }

  /** Salt's _linux_init_system: systemd when /run/systemd/system exists, else from PID 1's command. */
  private async init(): Promise<string> {
    if (await this.host.exists('/run/systemd/system')) return 'systemd';
    const cmdline = ((await this.host.readFile('/proc/1/cmdline')) ?? '').split('\0').filter(Boolean);
    const first = cmdline[0] ?? '';
    if (first.endsWith('bin/init')) {
      const binary = ((await this.host.readFile(first)) ?? '').toLowerCase();
      for (const name of ['upstart', 'sysvinit', 'systemd']) if (binary.includes(name)) return name;
      return 'unknown';
    }
    const base = first.split('/').pop() ?? '';
    if (['supervisord', 'dumb-init', 'tini'].includes(base)) return base;
    if (first === 'runit' || cmdline.includes('/sbin/my_init')) return 'runit';
    return 'unknown';
  }

  private async systemd(): Promise<Grains | null> {
    if ((await this.shell.which('systemctl')) === null) return null;
    const res = await this.shell.run(['systemctl', '--version'], { pythonShell: false });
    const lines = res.stdout.split('\n');
    if (res.retcode !== 0 || !lines[0]?.startsWith('systemd ')) return { version: 'UNDEFINED', features: '' };
    return { version: lines[0].split(/\s+/)[1], features: lines[1] ?? '' };
  }

  private localeInfo(): Grains {
    const [defaultlanguage, defaultencoding] = pythonLocale(this.host.env('LC_ALL') || this.host.env('LC_CTYPE') || this.host.env('LANG'));
    const timezone =
      localZoneAt(this.host.root, this.host.env('TZ'))?.abbrev ??
      new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(new Date()).find((p) => p.type === 'timeZoneName')?.value ??
      'unknown';
    return { defaultlanguage, defaultencoding, detectedencoding: 'utf-8', timezone };
  }

  /** Every interface of /proc/net/dev (with or without addresses), in its order. */
  private async interfaces(): Promise<Grains> {
    const dev = (await this.host.readFile('/proc/net/dev')) ?? '';
    const names = dev
      .split('\n')
      .slice(2)
      .map((l) => l.split(':')[0].trim())
      .filter(Boolean);
    const addrs = this.host.networkInterfaces();
    for (const n of Object.keys(addrs)) if (!names.includes(n)) names.push(n);
    const ip4: Record<string, string[]> = {};
    const ip6: Record<string, string[]> = {};
    const ip: Record<string, string[]> = {};
    const hw: Record<string, string> = {};
    for (const n of names) {
      ip4[n] = (addrs[n] ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address);
      ip6[n] = (addrs[n] ?? []).filter((a) => a.family === 'IPv6').map((a) => a.address);
      ip[n] = [...ip4[n], ...ip6[n]];
      const mac = ((await this.host.readFile(`/sys/class/net/${n}/address`)) ?? addrs[n]?.[0]?.mac ?? '').trim();
      if (mac) hw[n] = mac;
    }
    return { ip4_interfaces: ip4, ip6_interfaces: ip6, ip_interfaces: ip, hwaddr_interfaces: hw };
  }

  /** Salt's default_gateway, from the kernel's routing tables. */
  private async gateways(): Promise<Grains> {
    let gw4: string | boolean = false;
    let gw6: string | boolean = false;
    for (const line of ((await this.host.readFile('/proc/net/route')) ?? '').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 8 && f[1] === '00000000' && f[7] === '00000000') {
        gw4 = f[2] === '00000000' ? true : hexIPv4(f[2]);
        break;
      }
    }
    for (const line of ((await this.host.readFile('/proc/net/ipv6_route')) ?? '').split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length >= 10 && /^0{32}$/.test(f[0]) && f[1] === '00' && f[9] !== 'lo') {
        gw6 = /^0{32}$/.test(f[4]) ? true : hexIPv6(f[4]);
        break;
      }
    }
    return { ip4_gw: gw4, ip6_gw: gw6, ip_gw: gw4 !== false || gw6 !== false };
  }

  /** Salt's parse_resolv of /etc/resolv.conf. */
  private async dns(): Promise<Grains | null> {
    const text = (await this.host.readFile('/run/systemd/resolve/resolv.conf')) ?? (await this.host.readFile('/etc/resolv.conf'));
    if (text === null) return null;
    const ret = {
      nameservers: [] as string[],
      ip4_nameservers: [] as string[],
      ip6_nameservers: [] as string[],
      sortlist: [] as string[],
      domain: '',
      search: [] as string[],
      options: [] as string[],
    };
    for (const raw of text.split('\n')) {
      const line = raw.split(/[#;]/)[0].trim();
      const [key, ...rest] = line.split(/\s+/);
      if (key === 'nameserver' && rest[0]) {
        ret.nameservers.push(rest[0]);
        (rest[0].includes(':') ? ret.ip6_nameservers : ret.ip4_nameservers).push(rest[0]);
      } else if (key === 'domain' && rest[0]) ret.domain = rest[0];
      else if (key === 'search') ret.search.push(...rest);
      else if (key === 'sortlist') ret.sortlist.push(...rest);
      else if (key === 'options') ret.options.push(...rest);
    }
    return ret;
  }

  /** Salt's _linux_disks: block devices that are not virtual, split by the rotational flag. */
  private async disks(): Promise<Grains> {
    const disks: string[] = [];
    const ssds: string[] = [];
    for (const dev of await this.host.listDir('/sys/block')) {
      // Devices under /sys/devices/virtual (loop, ram, zram, device-mapper, md, nbd) are left out.
      if (/^(loop|ram|zram|dm-|md|nbd)/.test(dev)) continue;
      const flag = ((await this.host.readFile(`/sys/block/${dev}/queue/rotational`)) ?? '').slice(0, 1);
      if (flag === '0') ssds.push(dev);
      else if (flag === '1') disks.push(dev);
    }
    return { disks, ssds };
  }

  /** Salt's ip_fqdn: the fqdn's IPv4 and IPv6 addresses by the resolver ([] when it does not resolve). */
  private async fqdnIps(): Promise<Grains> {
    const fqdn = this.host.hostname();
    const resolve = async (family: 4 | 6): Promise<string[]> => {
      try {
        return [...new Set((await lookup(fqdn, { family, all: true })).map((a) => a.address))].sort();
      } catch {
        return [];
      }
    };
    return { fqdn_ip4: await resolve(4), fqdn_ip6: await resolve(6), fqdns: await this.fqdns() };
  }

  /** Salt's fqdns: the names the resolver gives back for each address that is not loopback or link-local. */
  private async fqdns(): Promise<string[]> {
    const ips = Object.values(this.host.networkInterfaces())
      .flat()
      .filter((a) => !a.internal && !a.address.startsWith('fe80:'))
      .map((a) => a.address);
    const names = await Promise.all(
      ips.map(async (ip) => {
        try {
          const { hostname } = await lookupService(ip, 0);
          // getnameinfo answers the address itself when nothing names it.
          return hostname === ip ? null : hostname;
        } catch {
          return null;
        }
      }),
    );
    return [...new Set(names.filter((n): n is string => n !== null))].sort();
  }

  private async virtualSubtype(): Promise<string | null> {
    if (await this.host.exists('/.dockerenv')) return 'Docker';
    const cgroup = (await this.host.readFile('/proc/1/cgroup')) ?? '';
    if (/docker/.test(cgroup)) return 'Docker';
    if (/lxc/.test(cgroup)) return 'LXC';
    return null;
  }
}
