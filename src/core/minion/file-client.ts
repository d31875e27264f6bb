import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ProtocolError } from '../errors';

/** Sends one aes request load to the master and returns the decoded reply (the minion's request channel). */
export type MasterRequest = (load: Record<string, unknown>) => Promise<unknown>;

function bytesOf(v: unknown, what: string): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (v instanceof Uint8Array) return Buffer.from(v);
  if (typeof v === 'string') return Buffer.from(v, 'utf8'); // the msgpack decoder turns valid UTF-8 raws into strings
  throw new ProtocolError('BAD_LOAD', `${what} must be bytes, got ${v === null ? 'null' : typeof v}`);
}

/**
 * The minion's side of Salt's file server (`salt.fileclient.RemoteClient`), over any request
 * function: `_file_list` to list, `_serve_file` chunk by chunk (`loc` = bytes received so far)
 * until an empty chunk, gunzipping chunks the master compressed.
 *
 * @example
 * const files = new FileClient((load) => minion.request(load));
 * await files.list('base', '_modules');                                   // ['_modules/hello.ts']
 * await files.fetch('base', '_modules/hello.ts', '/var/cache/salt/minion/files/base/_modules/hello.ts'); // true
 */
export class FileClient {
  constructor(
    private readonly request: MasterRequest,
    private readonly options: { gzip?: number; maxChunks?: number } = {},
  ) {}

  /** Salt's `file_list(saltenv, prefix)`: paths relative to the file roots. */
  async list(saltenv: string, prefix = ''): Promise<string[]> {
    const reply = await this.request({ saltenv, prefix, cmd: '_file_list' });
    if (!Array.isArray(reply)) throw new ProtocolError('BAD_LOAD', `_file_list reply must be a list, got ${typeof reply}`);
    return reply.map((p) => {
      if (typeof p !== 'string') throw new ProtocolError('BAD_LOAD', '_file_list reply holds a path that is not a string');
      return p;
    });
  }

  /** Salt's `hash_file`: the master's digest of `path` (`_file_hash`), or null when it has no such file. */
  async hash(saltenv: string, path: string): Promise<{ hsum: string; hash_type: string } | null> {
    const reply = await this.request({ path, saltenv, cmd: '_file_hash' });
    if (reply === '' || reply === null || reply === undefined) return null;
    const r = reply as Record<string, unknown>;
    if (typeof reply !== 'object' || Array.isArray(reply) || typeof r.hsum !== 'string' || typeof r.hash_type !== 'string') {
      throw new ProtocolError('BAD_LOAD', `_file_hash reply for ${path} must be {hsum, hash_type}`);
    }
    return { hsum: r.hsum, hash_type: r.hash_type };
  }

  /** Salt's `envs()`: the saltenvs of the master's file server (`_file_envs`). */
  async envs(): Promise<string[]> {
    const reply = await this.request({ cmd: '_file_envs' });
    if (!Array.isArray(reply) || !reply.every((e) => typeof e === 'string'))
      throw new ProtocolError('BAD_LOAD', '_file_envs reply must be a list of names');
    return reply as string[];
  }

  /**
   * Download `path` of `saltenv` to `dest` (written to a temporary file, then renamed). False,
   * and nothing written, when the master has no such file. An empty file on the master gives an
   * empty `dest`.
   */
  async fetch(saltenv: string, path: string, dest: string): Promise<boolean> {
    await mkdir(dirname(dest), { recursive: true });
    const tmp = `${dest}.part-${process.pid}`;
    const handle = await open(tmp, 'w');
    let received = 0;
    let found = false;
    const maxChunks = this.options.maxChunks ?? 1_000_000;
    try {
      for (let chunk = 0; ; chunk++) {
        if (chunk >= maxChunks) throw new ProtocolError('BAD_LOAD', `_serve_file for ${path}: more than ${maxChunks} chunks`);
        const load: Record<string, unknown> = { path, saltenv, cmd: '_serve_file', loc: received };
        if (this.options.gzip) load.gzip = this.options.gzip;
        const reply = await this.request(load);
        if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
          throw new ProtocolError('BAD_LOAD', `_serve_file reply for ${path} must be a map`);
        }
        const r = reply as Record<string, unknown>;
        let data = bytesOf(r.data ?? '', '_serve_file data');
        if (typeof r.dest === 'string' && r.dest !== '') found = true;
        if (data.length === 0) break;
        // node:zlib only for a master that compresses (gzip is off by default).
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        if (r.gzip) data = (require('node:zlib') as typeof import('node:zlib')).gunzipSync(data);
        await handle.write(data);
        received += data.length;
      }
    } catch (err) {
      await handle.close();
      await rm(tmp, { force: true });
      throw err;
    }
    await handle.close();
    if (!found) {
      await rm(tmp, { force: true });
      return false;
    }
    await rename(tmp, dest);
    return true;
  }
}
