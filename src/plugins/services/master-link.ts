import { CommandExecutionError } from '../api/errors';
import type { IMasterLink, MasterFileHash } from '../api/master-link';
import { FileClient, type MasterRequest } from '../../core/minion/file-client';
import { pingMaster } from './master-ping';

function stringList(reply: unknown, what: string): string[] {
  if (!Array.isArray(reply) || !reply.every((p) => typeof p === 'string')) {
    throw new CommandExecutionError(`The master answered ${what} with ${JSON.stringify(reply)}, not a list of paths`);
  }
  return reply;
}

/**
 * {@link IMasterLink} over the minion's request channel: the loads are those Salt 3007's minion
 * sends (`salt/modules/event.py`, `salt/fileclient.py`, `salt/modules/mine.py`), so a brine
 * minion's modules work under a Salt master as under a brine one.
 */
export class MasterLink implements IMasterLink {
  private readonly files: FileClient;

  constructor(private readonly request: MasterRequest) {
    this.files = new FileClient(request);
  }

  async fireEvent(tag: string, data: unknown, preload: Record<string, unknown> = {}): Promise<void> {
    // Extra fields never replace the request's own (Salt lets them; the master would refuse the load).
    await this.request({ ...preload, cmd: '_minion_event', tag, data, pretag: null });
  }

  listFiles(saltenv: string, prefix = ''): Promise<string[]> {
    return this.files.list(saltenv, prefix);
  }

  async listDirs(saltenv: string, prefix = ''): Promise<string[]> {
    return stringList(await this.request({ cmd: '_dir_list', saltenv, prefix }), '_dir_list');
  }

  async listEmptyDirs(saltenv: string, prefix = ''): Promise<string[]> {
    return stringList(await this.request({ cmd: '_file_list_emptydirs', saltenv, prefix }), '_file_list_emptydirs');
  }

  hashFile(saltenv: string, path: string): Promise<MasterFileHash | null> {
    return this.files.hash(saltenv, path);
  }

  fetchFile(saltenv: string, path: string, dest: string): Promise<boolean> {
    return this.files.fetch(saltenv, path, dest);
  }

  mineSend(data: Record<string, unknown>, clear = false): Promise<unknown> {
    return this.request({ cmd: '_mine', data, clear });
  }

  async mineGet(tgt: string, fun: string | string[], tgtType: string): Promise<Record<string, unknown>> {
    const reply = await this.request({ cmd: '_mine_get', tgt, fun, tgt_type: tgtType });
    if (reply === null || typeof reply !== 'object' || Array.isArray(reply)) {
      throw new CommandExecutionError(`The master answered _mine_get with ${JSON.stringify(reply)}, not a map of minions`);
    }
    return reply as Record<string, unknown>;
  }

  mineDelete(fun: string): Promise<unknown> {
    return this.request({ cmd: '_mine_delete', fun });
  }

  mineFlush(): Promise<unknown> {
    return this.request({ cmd: '_mine_flush' });
  }

  pushFileChunk(chunk: { path: string[]; size: number; loc: number; data: Buffer }): Promise<unknown> {
    return this.request({ cmd: '_file_recv', path: chunk.path, size: chunk.size, loc: chunk.loc, data: chunk.data });
  }

  ping(host: string, port: number, timeoutMs: number): Promise<boolean> {
    return pingMaster(host, port, timeoutMs);
  }
}

/** {@link IMasterLink} of a minion without a master (salt-call --local): every request is a clear error. */
export class NoMasterLink implements IMasterLink {
  /** Pinging a given master needs no session with one. */
  ping(host: string, port: number, timeoutMs: number): Promise<boolean> {
    return pingMaster(host, port, timeoutMs);
  }

  private refuse(what: string): never {
    throw new CommandExecutionError(`Cannot ${what}: this minion runs without a master (salt-call --local or file_client: local)`);
  }

  fireEvent(): Promise<void> {
    return this.refuse('send an event to the master');
  }

  listFiles(): Promise<string[]> {
    return this.refuse("list the master's files");
  }

  listDirs(): Promise<string[]> {
    return this.refuse("list the master's directories");
  }

  listEmptyDirs(): Promise<string[]> {
    return this.refuse("list the master's empty directories");
  }

  hashFile(): Promise<MasterFileHash | null> {
    return this.refuse("hash a file on the master's file server");
  }

  fetchFile(): Promise<boolean> {
    return this.refuse("fetch a file from the master's file server");
  }

  mineSend(): Promise<unknown> {
    return this.refuse("store data in the master's mine");
  }

  mineGet(): Promise<Record<string, unknown>> {
    return this.refuse("read the master's mine");
  }

  mineDelete(): Promise<unknown> {
    return this.refuse("delete from the master's mine");
  }

  mineFlush(): Promise<unknown> {
    return this.refuse("flush the master's mine");
  }

  pushFileChunk(): Promise<unknown> {
    return this.refuse('push a file to the master');
  }
}
