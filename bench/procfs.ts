/**
 * Memory and CPU time of another process, read from Linux's /proc (the master runs as a child
 * process so that its figures are its own, not the benchmark's).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { BenchError } from './bench-error';

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch (err) {
    throw new BenchError('BENCH_PROCFS', `bench: cannot read /proc/${pid}/${file}`, {
      cause: err,
      hint: 'the scale benchmark reads /proc and needs Linux, and the process must still be running',
    });
  }
}

/** Resident set size in MiB (VmRSS from /proc/<pid>/status). */
export function rssMiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readProc(pid, 'status'));
  if (!match) throw new BenchError('BENCH_PROCFS', `bench: no VmRSS line in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/**
 * The resident memory's two parts in MiB (RssAnon and RssFile + RssShmem): the process's own
 * memory, and the pages of files it maps (above all the node binary's code it has run), which
 * every process mapping the same file shares.
 */
export function rssPartsMiB(pid: number): { anon: number; file: number } {
  const status = readProc(pid, 'status');
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
    if (!match) throw new BenchError('BENCH_PROCFS', `bench: no ${name} line in /proc/${pid}/status`);
    return Number(match[1]) / 1024;
  };
  return { anon: field('RssAnon'), file: field('RssFile') + field('RssShmem') };
}

/** Peak resident set size in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readProc(pid, 'status'));
  if (!match) throw new BenchError('BENCH_PROCFS', `bench: no VmHWM line in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

/** User + system CPU seconds the process has used so far (/proc/<pid>/stat, fields 14 and 15). */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(pid, 'stat');
}

/** The same for the process's main thread alone (/proc/<pid>/task/<pid>/stat). */
export function mainThreadCpuSeconds(pid: number): number {
  return statCpuSeconds(pid, `task/${pid}/stat`);
}

function statCpuSeconds(pid: number, file: string): number {
  const stat = readProc(pid, file);
  // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new BenchError('BENCH_PROCFS', `bench: unreadable /proc/${pid}/${file}`);
  // USER_HZ is 100 on every Linux that Node supports.
  return (utime + stime) / 100;
}

/** CPU seconds of this process (user + system). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** Open file descriptors of the process (entries of /proc/<pid>/fd). */
export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch (err) {
    throw new BenchError('BENCH_PROCFS', `bench: cannot list /proc/${pid}/fd`, {
      cause: err,
      hint: 'the process must be running and owned by this user',
    });
  }
}

/** The process's child processes (from /proc/<pid>/task/<tid>/children, every thread's). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const text = readProc(pid, `task/${tid}/children`).trim();
    if (text !== '') children.push(...text.split(/\s+/).map(Number));
  }
  return children;
}

/** A figure summed over several processes (the master and its publish process). */
export function sumOver(pids: readonly number[], figure: (pid: number) => number): number {
  return pids.reduce((total, pid) => total + figure(pid), 0);
}
