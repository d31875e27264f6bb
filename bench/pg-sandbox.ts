/**
 * A throwaway PostgreSQL server for the tests and the benchmark: initdb into a temporary
 * directory, start it on a free loopback port with pg_ctl, and remove it all on stop(). Nothing
 * global is touched. PostgreSQL refuses to run as root, so as root the server runs as the
 * `postgres` user (or `nobody`) through runuser.
 *
 *   const pg = await startThrowawayPostgres();
 *   const cache = await PostgresJobCache.open(pg.options);
 *   ...
 *   await pg.stop();
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import { BenchError } from './bench-error';
import type { PostgresOptions } from '../src/core/master/job-cache/postgres-cache';
import { freePort } from '../scripts/free-port';

export interface ThrowawayPostgres {
  options: PostgresOptions;
  dataDir: string;
  stop(): Promise<void>;
}

function fail(message: string, cause?: unknown): never {
  throw new BenchError('PG_SANDBOX', message, {
    cause,
    hint: 'install the PostgreSQL server binaries (Debian: apt-get install -y postgresql) so that initdb and pg_ctl exist',
  });
}

/** The directory holding initdb and pg_ctl: on PATH, or Debian's /usr/lib/postgresql/<ver>/bin. */
export function findPostgresBin(): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    // Follow a symlink (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb) to the real set.
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dirname(realpathSync(join(dir, 'initdb')));
  }
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  }
  return fail('no PostgreSQL server binaries (initdb, pg_ctl) found on PATH or under /usr/lib/postgresql');
}

/** As root: the unprivileged account to run the server as, with its uid and gid. */
function serverAccount(): { name: string; uid: number; gid: number } | null {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const res = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    if (res.status !== 0) continue;
    const gid = Number(spawnSync('id', ['-g', name], { encoding: 'utf8' }).stdout.trim());
    return { name, uid: Number(res.stdout.trim()), gid };
  }
  return fail('running as root and neither a postgres nor a nobody account exists to run PostgreSQL');
}

async function createDatabase(options: PostgresOptions): Promise<void> {
  const client = new Client({ ...options, database: 'postgres' });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE "${options.database.replace(/"/g, '""')}"`);
  } catch (err) {
    fail(`creating database ${options.database} failed: ${(err as Error).message}`, err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function startThrowawayPostgres(
  opts: { user?: string; password?: string; database?: string } = {},
): Promise<ThrowawayPostgres> {
  const bin = findPostgresBin();
  const account = serverAccount();
  const user = opts.user ?? 'brine';
  const password = opts.password ?? 'brine-test-pass';
  const database = opts.database ?? 'brine';
  const base = mkdtempSync(join(tmpdir(), 'brine-pg-'));
  const dataDir = join(base, 'data');
  const pwFile = join(base, 'pwfile');
  const logFile = join(base, 'server.log');
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (account) {
    chownSync(base, account.uid, account.gid);
    chownSync(pwFile, account.uid, account.gid);
  }
  const run = (tool: string, args: string[]): void => {
    const cmd = account ? 'runuser' : join(bin, tool);
    const argv = account ? ['-u', account.name, '--', join(bin, tool), ...args] : args;
    try {
      execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: base, timeout: 60_000 });
    } catch (err) {
      const e = err as { stderr?: Buffer; stdout?: Buffer };
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
      fail(`${tool} failed: ${String(e.stderr ?? '')}${String(e.stdout ?? '')}${log}`.trim(), err);
    }
  };
  let started = false;
  const cleanup = async (): Promise<void> => {
    if (started) {
      started = false;
      run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
    }
    rmSync(base, { recursive: true, force: true });
  };
  try {
    // --no-sync: a throwaway cluster need not be flushed to disk once before it starts.
    run('initdb', ['--no-sync', '-D', dataDir, '-U', user, '--pwfile', pwFile, '--auth', 'scram-sha-256', '-E', 'UTF8', '--no-locale']);
    const port = await freePort();
    // The socket goes in our own directory: the system one may not exist or be writable.
    const serverOpts = `-p ${port} -k ${base} -c listen_addresses=127.0.0.1`;
    run('pg_ctl', ['start', '-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOpts]);
    started = true;
    const options = { host: '127.0.0.1', port, user, password, database };
    if (database !== 'postgres') await createDatabase(options);
    return { options, dataDir, stop: cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
