/**
 * The real `IdentitySources`: node:os for names and interfaces, files under a root directory
 * (`/` on a live host, a temp folder in tests) and DNS with a time bound.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { IdentityError } from '../minion-errors';
import { addressOf, canonicalNameOf, isIP, namesOf, parseHostsFile } from './hosts-file';
import type { IdentitySources } from './identity-sources';

export interface NodeIdentitySourcesOptions {
  /** The directory the host files (/etc/hosts, /etc/hostname, /etc/nodename) are read under. Default `/`. */
  root?: string;
  /** The longest one name or address lookup may take before it counts as failed. Default 2000 ms. */
  lookupTimeoutMs?: number;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new IdentityError('LOOKUP_TIMEOUT', `${what} took longer than ${ms} ms`));
    }, ms);
    timer.unref();
  });
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}

export function createNodeIdentitySources(options: NodeIdentitySourcesOptions = {}): IdentitySources {
  const root = options.root ?? '/';
  const timeoutMs = options.lookupTimeoutMs ?? 2000;
  if (typeof root !== 'string' || !path.isAbsolute(root)) {
    throw new IdentityError('BAD_ROOT', `the identity root must be an absolute directory, not ${JSON.stringify(root)}`);
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new IdentityError('BAD_TIMEOUT', `lookupTimeoutMs must be a positive number of milliseconds, not ${String(timeoutMs)}`);
  }

  const underRoot = (file: string): string => {
    if (typeof file !== 'string' || !path.isAbsolute(file)) {
      throw new IdentityError('BAD_PATH', `host files are named by absolute path, not ${JSON.stringify(file)}`);
    }
    return path.join(root, file);
  };

  const readSystemFile = async (file: string): Promise<string | null> => {
    const full = underRoot(file);
    try {
      return await readFile(full, 'utf8');
    } catch {
      return null; // Salt skips any host file it cannot open.
    }
  };

  const hostsEntries = async () => parseHostsFile((await readSystemFile('/etc/hosts')) ?? '');

  // Python's gethostbyaddr(name): name -> address (files, then the system resolver), then
  // address -> [hostname, ...aliases] (files, then a DNS PTR query).
  const gethostbyaddr = async (name: string): Promise<string[]> => {
    // Loaded here: a minion whose id is configured never asks (node:dns is ~2 ms of each start).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const dns = (require('node:dns') as typeof import('node:dns')).promises;
    const entries = await hostsEntries();
    let address: string | null = isIP(name) !== 0 ? name : addressOf(entries, name);
    if (address === null) {
      const found = await withTimeout(dns.lookup(name), timeoutMs, `looking up ${name}`);
      address = found.address;
    }
    const fromFile = namesOf(entries, address);
    if (fromFile) return fromFile;
    const resolver = new dns.Resolver({ timeout: timeoutMs, tries: 1 });
    const names = await withTimeout(resolver.reverse(address), timeoutMs, `reverse lookup of ${address}`, () => resolver.cancel());
    if (names.length === 0) throw new IdentityError('NO_PTR', `no name for ${address}`);
    return names;
  };

  return {
    async gethostname() {
      return os.hostname();
    },
    async nodename() {
      // glibc's gethostname() is uname()'s nodename, and Node exposes uname only through it.
      return os.hostname();
    },
    async getfqdn(name: string) {
      let target = typeof name === 'string' ? name.trim() : '';
      if (target === '' || target === '0.0.0.0') target = os.hostname();
      let names: string[];
      try {
        names = await gethostbyaddr(target);
      } catch {
        return target; // as Python: a failed lookup answers the name it was given
      }
      return names.find((n) => n.includes('.')) ?? names[0];
    },
    async canonicalName(host: string) {
      // Only the hosts file: Salt asks this for "localhost", which DNS does not answer.
      return canonicalNameOf(await hostsEntries(), host);
    },
    readSystemFile,
    async ipv4Addresses() {
      const out: string[] = [];
      for (const list of Object.values(os.networkInterfaces())) {
        for (const a of list ?? []) if (a.family === 'IPv4') out.push(a.address);
      }
      return out;
    },
    async readCacheFile(file: string) {
      try {
        return await readFile(file, 'utf8');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ENOTDIR') return null;
        throw err;
      }
    },
    async writeCacheFile(file: string, text: string) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text, 'utf8');
    },
  };
}
