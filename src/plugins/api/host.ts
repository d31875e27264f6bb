/** One network interface address, as Node's `os.networkInterfaces()` gives it. */
export interface HostAddress {
  address: string;
  family: 'IPv4' | 'IPv6';
  mac: string;
  internal: boolean;
}

/**
 * Facts about the machine, for grains providers. Files are read below `root`, so tests point it
 * at a fixture tree (`<fixture>/etc/os-release`, `<fixture>/proc/meminfo`, ...).
 *
 * @example
 * const osRelease = await this.host.readFile('/etc/os-release'); // null when missing
 */
export interface IHost {
  /** The directory that stands for `/`. */
  readonly root: string;
  /** A file's text below `root`, or null when it does not exist or cannot be read. */
  readFile(path: string): Promise<string | null>;
  /** Whether a path exists below `root`. */
  exists(path: string): Promise<boolean>;
  /** The names in a directory below `root`, sorted; [] when it does not exist. */
  listDir(path: string): Promise<string[]>;
  hostname(): string;
  /** `uname -s`: 'Linux'. */
  kernel(): string;
  /** `uname -r`. */
  kernelRelease(): string;
  /** `uname -v`. */
  kernelVersion(): string;
  /** `uname -m`: 'x86_64'. */
  machine(): string;
  /** CPU model names, one per logical CPU. */
  cpuModels(): string[];
  networkInterfaces(): Record<string, HostAddress[]>;
  env(name: string): string | undefined;
}
/** Service id of {@link IHost}. @example constructor(@inject(IHost) private readonly host: IHost) {} */
export const IHost: unique symbol = Symbol.for('brine.IHost');
