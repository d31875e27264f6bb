/**
 * `salt-cp`, as Salt 3007's salt/cli/cp.py: copies files from the master's host to the minions a
 * target matches, through ordinary jobs. Without `--chunked`, one `cp.recv` job carries every file
 * (files only, as text); with `-C/--chunked`, each file goes in `cp.recv_chunked` jobs of
 * `salt_cp_chunk_size` bytes (base64, each chunk gzipped unless `-n/--no-compression`), whole
 * directories are copied and their empty folders created. The returns are printed as Salt's
 * `{minion: {remote path: True or the error}}` with the chosen outputter (nested by default).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { MasterConfig } from '../core/config';
import type { MasterAddress } from '../core/client/local-client';
import { LocalJobs } from '../core/client/local-jobs';
import { KeyStore } from '../core/master/key-store';
import { parseKwargString } from '../core/protocol/salt-args';
import { targetResolver } from '../core/master/target-preview';
import type { Logger } from '../core/log';
import { pyStr } from '../core/pycompat';
import { formatOutput, type Outputter } from './output';
import type { Io } from './salt';
import { CliError } from './errors';

export interface SaltCpOptions {
  master: MasterConfig & MasterAddress;
  tgt: string | string[];
  tgtType: string;
  /** Source paths, already made absolute and real (Salt's os.path.realpath). */
  src: string[];
  dest: string;
  chunked: boolean;
  gzip: boolean;
  timeoutSec: number;
  out: Outputter;
  outIndent?: number;
  /** Print in Salt's colours (see output/colors.ts useColor). */
  color?: boolean;
  /** --out-file: write the output there instead of stdout. */
  outFile?: string;
  /** Where the command logs (--log-file): Salt's debug line per chunk and empty directory. */
  log?: Pick<Logger, 'debug' | 'error'>;
}

/** Salt's exit codes of salt-cp: a missing source is 42 (its sys.exit(42)). */
const EX_MISSING = 42;

/** Python's os.path.join for two POSIX parts (no normalising). */
function pyJoin(a: string, b: string): string {
  if (b.startsWith('/')) return b;
  return a === '' || a.endsWith('/') ? a + b : `${a}/${b}`;
}

/** The permission bits of a file, as salt-cp sends them (int(oct(st_mode)[-4:], 8)). */
function modeOf(path: string): number {
  return statSync(path).mode & 0o7777;
}

class MissingSource extends Error {}

/** Salt's _recurse: the files (with their modes) and the empty directories under `path`. */
function recurse(path: string, files: Map<string, number>, emptyDirs: string[]): void {
  if (!existsSync(path)) throw new MissingSource(`${path} does not exist\n`);
  if (!statSync(path).isDirectory()) {
    files.set(path, modeOf(path));
    return;
  }
  const entries = readdirSync(path).sort();
  if (entries.length === 0) emptyDirs.push(path);
  for (const entry of entries) recurse(pyJoin(path, entry), files, emptyDirs);
}

/**
 * The chunks of a file as Salt reads them: gzip = salt.utils.gzip_util.compress_file (each read
 * gzipped alone; reading goes on while a read fills the chunk, so an empty file is one chunk);
 * plain = salt.utils.itertools.read_file (the non-empty reads).
 */
function* chunksOf(path: string, size: number, gzip: boolean): Generator<Buffer> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(size);
    for (let pos = 0; ;) {
      let n = 0;
      while (n < size) {
        const got = readSync(fd, buffer, n, size - n, pos + n);
        if (got === 0) break;
        n += got;
      }
      pos += n;
      if (gzip) {
        yield gzipSync(buffer.subarray(0, n), { level: 9 });
        if (n < size) return;
      } else {
        if (n === 0) return;
        yield Buffer.from(buffer.subarray(0, n));
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A chunk as the job carries it: base64 text. A text such as `H4sIA...AAA=` has the shape of a
 * `key=value` word, which a minion reads as a keyword argument (Salt's own salt-cp then fails
 * with "The following keyword arguments are not valid"); a leading newline, which base64
 * decoders skip (Python's b64decode too), keeps it positional.
 */
function encodeChunk(chunk: Buffer): string {
  const text = chunk.toString('base64');
  return parseKwargString(text) ? `\n${text}` : text;
}

export async function runSaltCp(o: SaltCpOptions, io: Io): Promise<number> {
  const jobs = new LocalJobs({ master: o.master, timeoutSec: o.timeoutSec, gatherJobTimeoutSec: o.master.gather_job_timeout ?? 10 });
  const cmd = async (fun: string, arg: unknown[]): Promise<Record<string, unknown>> => {
    const res = await jobs.run({ tgt: o.tgt, tgtType: o.tgtType, fun, arg, user: o.master.user ?? 'root', timeoutSec: o.timeoutSec });
    return Object.fromEntries((res?.returns ?? []).map((r) => [r.id, r.return]));
  };
  let ret: Record<string, unknown> | null;
  try {
    ret = o.chunked ? await chunked(o, cmd) : await oldStyle(o, io, cmd);
  } catch (err) {
    if (!(err instanceof MissingSource)) throw err;
    io.err(err.message);
    return EX_MISSING;
  }
  if (ret === null) return 1;
  const text = formatOutput(o.out, ret, { indent: o.outIndent, static: true, color: o.color });
  if (o.outFile) writeFileSync(o.outFile, text);
  else io.out(text);
  return 0;
}

type Cmd = (fun: string, arg: unknown[]) => Promise<Record<string, unknown>>;

/** Salt's run_oldstyle: one cp.recv job with every file's text; null when a source is a directory (said on stdout, as Salt). */
async function oldStyle(o: SaltCpOptions, io: Io, cmd: Cmd): Promise<Record<string, unknown> | null> {
  const files: Record<string, string> = {};
  for (const path of o.src) {
    if (existsSync(path) && statSync(path).isDirectory()) {
      io.out(`${path} is a directory, only files are supported in non-chunked mode. Use "--chunked" command line argument.\n`);
      return null;
    }
    if (!existsSync(path)) throw new MissingSource(`The referenced file, ${path} is not available.\n`);
    files[path] = readFileSync(path, 'utf8');
  }
  return cmd('cp.recv', [files, o.dest]);
}

/** Salt's run_chunked. */
async function chunked(o: SaltCpOptions, cmd: Cmd): Promise<Record<string, unknown>> {
  const files = new Map<string, number>();
  const emptySet: string[] = [];
  for (const path of o.src) recurse(path, files, emptySet);
  const emptyDirs = [...new Set(emptySet)].sort();
  const destIsDir = emptyDirs.length > 0 || files.size > 1 || /[\\/]$/.test(o.dest);
  const chunkSize = Number((o.master as unknown as Record<string, unknown>).salt_cp_chunk_size ?? 98304);
  if (!Number.isSafeInteger(chunkSize) || chunkSize < 1) {
    throw new CliError(`salt_cp_chunk_size must be a number of bytes >= 1, got ${chunkSize}; fix it in the master config`, 1);
  }
  const minions = [...targetResolver(o.master, new KeyStore({ pkiDir: o.master.pki_dir }))(o.tgt, o.tgtType)].sort();

  const remotePath = (path: string): string | null => {
    if (o.src.includes(path)) return destIsDir ? pyJoin(o.dest, basename(path)) : o.dest;
    for (const src of o.src) {
      const rel = relative(src + sep, path);
      if (rel.startsWith(`..${sep}`) || rel === '..') continue;
      return pyJoin(pyJoin(o.dest, basename(src)), rel);
    }
    return null;
  };

  const ret: Record<string, Record<string, unknown>> = {};
  const put = (id: string, path: string, value: unknown) => ((ret[id] ??= {})[path] = value);
  // Salt's log lines name the target option (-L: `list `) and the target as Python prints it.
  const on = `${o.tgtType === 'glob' ? '' : `${o.tgtType} `}target '${pyStr(o.tgt)}'`;
  for (const [path, mode] of files) {
    const remote = remotePath(path);
    if (remote === null) {
      o.log?.error(`Failed to find remote path for ${path}`);
      continue;
    }
    const failed = new Map<string, unknown>();
    let index = 1;
    for (const chunk of chunksOf(path, chunkSize, o.gzip)) {
      const append = index > 1;
      o.log?.debug(`Copying ${path} to ${on} as ${remote}${append ? ` (chunk #${index})` : ''}`);
      const result = await cmd('cp.recv_chunked', [remote, encodeChunk(chunk), append, o.gzip, mode]);
      if (Object.keys(result).length === 0) {
        const msg = `Publish failed.${index > 1 ? ' File partially transferred.' : ''} It may be necessary to decrease salt_cp_chunk_size (current value: ${chunkSize})`;
        for (const id of minions) put(id, remote, msg);
        break;
      }
      for (const [id, value] of Object.entries(result)) {
        put(id, remote, value);
        // The first error of a minion is what it reports for this file.
        if (value !== true && !failed.has(id)) failed.set(id, value);
      }
      index++;
    }
    for (const [id, msg] of failed) put(id, remote, msg);
  }
  for (const dir of emptyDirs) {
    const remote = remotePath(dir);
    if (remote === null) continue;
    o.log?.debug(`Creating empty dir ${dir} on ${on}`);
    for (const [id, value] of Object.entries(await cmd('cp.recv_chunked', [remote, null]))) put(id, remote, value);
  }
  return ret;
}
