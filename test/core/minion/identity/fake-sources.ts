import type { IdentityLog, IdentitySources } from '../../../../src/core/minion/identity';

/** A staged host: every fact a test does not set is empty or absent. */
export interface FakeHost {
  hostname?: string;
  nodename?: string;
  /** getfqdn(name) answers; a name not listed answers itself, as Python does when lookups fail. */
  fqdn?: Record<string, string>;
  canonical?: Record<string, string>;
  files?: Record<string, string>;
  ips?: string[];
  cache?: Record<string, string>;
  /** Paths whose cache read fails with this errno code. */
  cacheReadErrors?: Record<string, string>;
  /** Paths whose cache write fails with this errno code. */
  cacheWriteErrors?: Record<string, string>;
}

export interface FakeSources extends IdentitySources {
  /** The cache files as written (and as staged). */
  readonly cache: Map<string, string>;
  readonly calls: string[];
}

function errno(code: string, file: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${file}`), { code });
}

export function fakeSources(host: FakeHost = {}): FakeSources {
  const cache = new Map(Object.entries(host.cache ?? {}));
  const calls: string[] = [];
  return {
    cache,
    calls,
    async gethostname() {
      calls.push('gethostname');
      return host.hostname ?? '';
    },
    async nodename() {
      calls.push('nodename');
      return host.nodename ?? host.hostname ?? '';
    },
    async getfqdn(name) {
      calls.push(`getfqdn:${name}`);
      return host.fqdn?.[name] ?? name;
    },
    async canonicalName(name) {
      calls.push(`canonical:${name}`);
      return host.canonical?.[name] ?? null;
    },
    async readSystemFile(file) {
      return host.files?.[file] ?? null;
    },
    async ipv4Addresses() {
      calls.push('ips');
      return host.ips ?? [];
    },
    async readCacheFile(file) {
      const code = host.cacheReadErrors?.[file];
      if (code) throw errno(code, file);
      return cache.get(file) ?? null;
    },
    async writeCacheFile(file, text) {
      const code = host.cacheWriteErrors?.[file];
      if (code) throw errno(code, file);
      cache.set(file, text);
    },
  };
}

export interface RecordingLog extends IdentityLog {
  lines: { level: 'debug' | 'info' | 'warning'; msg: string }[];
  at(level: 'debug' | 'info' | 'warning'): string[];
}

export function recordingLog(): RecordingLog {
  const lines: RecordingLog['lines'] = [];
  return {
    lines,
    debug: (msg) => lines.push({ level: 'debug', msg }),
    info: (msg) => lines.push({ level: 'info', msg }),
    warning: (msg) => lines.push({ level: 'warning', msg }),
    at: (level) => lines.filter((l) => l.level === level).map((l) => l.msg),
  };
}
