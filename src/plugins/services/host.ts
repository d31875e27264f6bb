import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import * as os from 'node:os';
import { join } from 'node:path';
import type { HostAddress, IHost } from '../api/host';

/**
 * {@link IHost} for the running machine. `root` redirects file reads (tests use fixture trees);
 * the other facts come from Node's `os` module.
 *
 * @example
 * await new NodeHost('/').readFile('/etc/os-release');
 */
export class NodeHost implements IHost {
  constructor(readonly root: string = '/') {}

  async readFile(path: string): Promise<string | null> {
    try {
      return await readFile(join(this.root, path), 'utf8');
    } catch {
      return null;
    }
  }
  async exists(path: string): Promise<boolean> {
    return existsSync(join(this.root, path));
  }
  async listDir(path: string): Promise<string[]> {
    try {
      return (await readdir(join(this.root, path))).sort();
    } catch {
      return [];
    }
  }
  hostname(): string {
    return os.hostname();
  }
  kernel(): string {
    return os.type();
  }
  kernelRelease(): string {
    return os.release();
  }
  kernelVersion(): string {
    return os.version();
  }
  machine(): string {
    return os.machine();
  }
  cpuModels(): string[] {
    return os.cpus().map((c) => c.model);
  }
  networkInterfaces(): Record<string, HostAddress[]> {
    const result: Record<string, HostAddress[]> = {};
    for (const [name, addrs] of Object.entries(os.networkInterfaces())) {
      result[name] = (addrs ?? []).map((a) => ({ address: a.address, family: a.family, mac: a.mac, internal: a.internal }));
    }
    return result;
  }
  env(name: string): string | undefined {
    return process.env[name];
  }
}
