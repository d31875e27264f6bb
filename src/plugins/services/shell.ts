import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { accessSync, closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants as osConstants, homedir, tmpdir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';
import { CommandExecutionError, InvocationError } from '../api/errors';
import type { IShell, ShellResult, ShellRunOptions } from '../api/services';
import { ShlexError, shlexSplit } from '../../core/pycompat';

/** The umask as an octal number; zero and non-octal values are refused, as Salt refuses them. */
function parseUmask(umask: string | number): number {
  const text = String(umask).replace(/^0+/, '');
  if (text === '') throw new CommandExecutionError('Zero umask is not allowed.');
  if (!/^[0-7]{1,4}$/.test(text)) throw new CommandExecutionError(`Invalid umask: '${umask}'`);
  return parseInt(text, 8);
}

interface LocalUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** uid, gid and home of a local user, from /etc/passwd. */
function lookupUser(name: string): LocalUser {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[0] === name);
  if (!line) throw new CommandExecutionError(`User '${name}' is not available`);
  const f = line.split(':');
  return { name, uid: Number(f[2]), gid: Number(f[3]), home: f[5] };
}

/**
 * The login environment of `user`, as Salt's cmdmod builds it for `runas`: `su -s SHELL - USER`
 * prints its environment between two markers (so a noisy profile cannot confuse the parse);
 * USER and HOME are then forced to the user's own, as Salt does. When su cannot log the user in
 * (PAM, no su), Salt goes on with only USER and HOME, and so does this.
 */
function loginEnvironment(user: LocalUser, shell: string): Promise<Record<string, string>> {
  const marker = `<<<${randomUUID()}>>>`;
  return new Promise((resolvePromise) => {
    const child = spawn('su', ['-s', shell, '-', user.name, '-c', `printf %s '${marker}'; env -0; printf %s '${marker}'`], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    const finish = () => {
      const parts = Buffer.concat(out).toString('utf8').split(marker);
      const env: Record<string, string> = {};
      if (parts.length === 3) {
        for (const entry of parts[1].split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
      }
      env.USER = user.name;
      env.HOME = user.home;
      resolvePromise(env);
    };
    child.once('error', finish);
    child.once('close', finish);
  });
}

/** The gid of a local group, from /etc/group (a number is taken as a gid). */
function lookupGroup(name: string): number {
  if (/^\d+$/.test(name)) return Number(name);
  const line = readFileSync('/etc/group', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[0] === name);
  if (!line) throw new CommandExecutionError(`Group '${name}' is not available`);
  return Number(line.split(':')[2]);
}

/**
 * {@link IShell} on the local machine with `child_process.spawn`. Every command gets its own
 * process group so a timeout or an abort kills everything it started (SIGKILL to the group).
 * Merged output and umask go through a tiny `/bin/sh` wrapper (`exec "$@" 2>&1`) so stdout and
 * stderr interleave in the order written, as with Salt's `stderr=STDOUT`.
 *
 * @example
 * await new NodeShell().run('echo out; echo err >&2', { pythonShell: true, mergeStderr: true });
 */
export class NodeShell implements IShell {
  async run(command: string | string[], options: ShellRunOptions = {}): Promise<ShellResult> {
    const p = await this.prepare(command, options);
    return this.spawnAndWait(p.argv, {
      cwd: p.cwd,
      env: p.env,
      uid: p.uid,
      gid: p.gid,
      stdin: options.stdin,
      timeout: options.timeout,
      signal: options.signal,
    });
  }

  async runBackground(command: string | string[], options: ShellRunOptions = {}): Promise<{ pid: number }> {
    const p = await this.prepare(command, options);
    return new Promise((resolvePromise, reject) => {
      const child = spawn(p.argv[0], p.argv.slice(1), { cwd: p.cwd, env: p.env, detached: true, stdio: 'ignore', uid: p.uid, gid: p.gid });
      child.once('error', (e) =>
        reject(new CommandExecutionError(`Unable to run command '${p.argv.join(' ')}': ${e.message}`, { cause: e })),
      );
      child.once('spawn', () => {
        child.unref(); // the minion does not wait for it, nor keep running because of it
        resolvePromise({ pid: child.pid ?? 0 });
      });
    });
  }

  /** argv, cwd, environment and identity of a command, checked as Salt checks them. */
  private async prepare(
    command: string | string[],
    options: ShellRunOptions,
  ): Promise<{ argv: string[]; cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number }> {
    if (typeof command === 'string' ? command.trim() === '' : command.length === 0) {
      throw new InvocationError('The command to run is empty');
    }
    let argv: string[];
    if (Array.isArray(command)) argv = command.map(String);
    else if (options.pythonShell) argv = [options.shell ?? process.env.SHELL ?? '/bin/sh', '-c', command];
    else argv = splitCommand(command);

    const me = process.getuid?.() ?? -1;
    let user: LocalUser | undefined;
    if (options.runas !== undefined && options.runas !== '') {
      user = lookupUser(options.runas);
      if (me !== 0 && me !== user.uid) {
        throw new CommandExecutionError(`runas '${options.runas}' needs the minion to run as root`);
      }
    }
    let gid = user?.gid;
    if (options.group !== undefined && options.group !== '') {
      gid = lookupGroup(options.group);
      if (me !== 0 && gid !== process.getgid?.()) {
        throw new CommandExecutionError(`group '${options.group}' needs the minion to run as root`);
      }
    }
    // Salt's default: the runner's home, or '/' when that home is not usable (nobody's /nonexistent).
    const home = user?.home ?? homedir();
    const cwd = options.cwd ?? (isReadableDir(home) ? home : '/');
    if (!isAbsolute(cwd) || !statSync(cwd, { throwIfNoEntry: false })?.isDirectory()) {
      throw new CommandExecutionError(`Specified cwd '${cwd}' either not absolute or does not exist`);
    }
    const wrapper: string[] = [];
    if (options.umask !== undefined && options.umask !== null) wrapper.push(`umask ${parseUmask(options.umask).toString(8)}`);
    if (wrapper.length > 0 || options.mergeStderr) {
      argv = ['/bin/sh', '-c', `${[...wrapper, `exec "$@"${options.mergeStderr ? ' 2>&1' : ''}`].join('; ')}`, 'sh', ...argv];
    }
    // runas: the user's login environment under the caller's variables, USER and HOME the user's.
    const asUser = user
      ? { ...(await loginEnvironment(user, options.shell ?? '/bin/sh')), ...(options.env ?? {}), USER: user.name, HOME: user.home }
      : (options.env ?? {});
    const env: NodeJS.ProcessEnv = { ...(options.cleanEnv ? {} : process.env), ...asUser };
    // As Salt: systemd's notify socket is the minion's, not the command's.
    if (options.env?.NOTIFY_SOCKET === undefined) delete env.NOTIFY_SOCKET;
    return { argv, cwd, env, uid: user?.uid, gid };
  }

  private spawnAndWait(
    argv: string[],
    o: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number; stdin?: string; timeout?: number; signal?: AbortSignal },
  ): Promise<ShellResult> {
    return new Promise((resolvePromise, reject) => {
      // stdin is /dev/null, or a file holding `stdin=`: never a socket, which makes bash believe
      // it was started by rshd and read ~/.bashrc on every command.
      const input = stdinFile(o.stdin);
      let child;
      try {
        child = spawn(argv[0], argv.slice(1), {
          cwd: o.cwd,
          env: o.env,
          detached: true, // own process group, so the whole group can be killed
          stdio: [input?.fd ?? 'ignore', 'pipe', 'pipe'],
          uid: o.uid,
          gid: o.gid,
        });
      } finally {
        input?.close();
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const killGroup = (): void => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is already gone
        }
      };
      const onAbort = (): void => killGroup();
      child.stdout?.on('data', (b: Buffer) => out.push(b));
      child.stderr?.on('data', (b: Buffer) => err.push(b));
      child.on('error', (e) => {
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        reject(new CommandExecutionError(`Unable to run command '${argv.join(' ')}': ${e.message}`, { cause: e }));
      });
      child.on('close', (code, signal) => {
        if (timer) clearTimeout(timer);
        o.signal?.removeEventListener('abort', onAbort);
        const sigNum = signal ? ((osConstants.signals as Record<string, number>)[signal] ?? 0) : 0;
        resolvePromise({
          pid: child.pid ?? 0,
          retcode: code ?? 128 + sigNum,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          timedOut,
        });
      });
      if (o.timeout !== undefined && o.timeout > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          killGroup();
        }, o.timeout * 1000);
      }
      if (o.signal) {
        if (o.signal.aborted) killGroup();
        else o.signal.addEventListener('abort', onAbort, { once: true });
      }
    });
  }

  async which(name: string): Promise<string | null> {
    if (name.includes('/')) return isExecutable(name) ? name : null;
    for (const dir of (process.env.PATH ?? '').split(delimiter)) {
      if (!dir) continue;
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
    return null;
  }
}

/** `stdin=` text as an open, already unlinked file the child reads from; undefined for none. */
function stdinFile(text: string | undefined): { fd: number; close(): void } | undefined {
  if (text === undefined) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'brine-stdin-'));
  const path = join(dir, 'stdin');
  try {
    writeFileSync(path, text, { mode: 0o600 });
    const fd = openSync(path, 'r');
    return { fd, close: () => closeSync(fd) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function isReadableDir(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** `shlex.split` of a command, its failure told as Salt tells a bad argument. */
function splitCommand(command: string): string[] {
  try {
    return shlexSplit(command);
  } catch (err) {
    if (err instanceof ShlexError) throw new InvocationError(`${err.message} in command: ${command}`, { cause: err });
    throw err;
  }
}
