/**
 * Who holds a pid file or a port, for the one-line error a daemon prints when it cannot start.
 * Reads Linux's /proc; elsewhere the answers are only less precise ("unknown").
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** `salt-master -c /etc/salt` for a pid, from its command line (node and script paths trimmed). */
export function describeProcess(pid: number): string {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
    // node /path/bin/salt-master -c DIR: show the bin's name and its arguments.
    const i = argv.findIndex((a) => /(^|\/)(salt[\w-]*)$/.test(a));
    const shown = i >= 0 ? [argv[i].replace(/^.*\//, ''), ...argv.slice(i + 1)] : argv;
    return shown.join(' ') || 'unknown command';
  } catch {
    return 'unknown command';
  }
}

/** The socket inodes listening on a TCP port (IPv4 and IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // f[1] local address HEX:PORT, f[3] state (0A = LISTEN), f[9] inode
      if (f.length < 10 || f[3] !== '0A') continue;
      if (parseInt(f[1].split(':').pop() ?? '', 16) === port) inodes.add(f[9]);
    }
  }
  return inodes;
}

/** The pid of a process listening on a TCP port, or undefined when it cannot be told. */
export function pidListeningOn(port: number): number | undefined {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m && inodes.has(m[1])) return Number(pid);
      } catch {
        // the fd closed while we looked
      }
    }
  }
  return undefined;
}
