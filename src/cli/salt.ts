import { appendFileSync, writeFileSync } from 'node:fs';
import { BrineError } from '../core/errors';
import { LocalClient, type MasterAddress, type MinionReturn } from '../core/master/local-client';
import { checkTarget, type TargetType } from '../core/targeting';
import { formatOutput, noReturnMessage, type Outputter } from './output';
import { CliError } from './errors';

export interface SaltOptions {
  master: MasterAddress & { nodegroups?: Record<string, string | string[]> };
  tgt: string;
  tgtType: TargetType;
  fun: string;
  arg: unknown[];
  timeoutSec: number;
  out: Outputter;
  outFile?: string;
  outIndent?: number;
  static: boolean;
  async: boolean;
  showJid: boolean;
  verbose: boolean;
  delimiter?: string;
  ret?: string;
}

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

/** Salt's exit codes (salt/defaults/exitcodes.py). */
const EX_OK = 0;
const EX_GENERIC = 1;
const EX_NO_MATCH = 2;

/**
 * `salt TARGET FUN ARGS...`: checks the target, publishes through the master, prints each return
 * as it arrives, and answers with Salt's exit code.
 */
export async function runSalt(opts: SaltOptions, io: Io): Promise<number> {
  const tgt = opts.tgtType === 'list' ? opts.tgt.split(',').filter((s) => s !== '') : opts.tgt;
  try {
    checkTarget({ tgt, tgtType: opts.tgtType, delimiter: opts.delimiter }, { nodegroups: opts.master.nodegroups });
  } catch (err) {
    throw new CliError((err as Error).message, EX_NO_MATCH);
  }
  const print = (text: string) => {
    if (text === '') return;
    const line = text.endsWith('\n') ? text : `${text}\n`;
    if (opts.outFile) appendFileSync(opts.outFile, line);
    else io.out(line);
  };
  if (opts.outFile) writeFileSync(opts.outFile, '');
  const format = (data: Record<string, unknown>) => formatOutput(opts.out, data, { indent: opts.outIndent, static: true });

  const client = await LocalClient.connect(opts.master);
  try {
    let pub;
    try {
      pub = await client.publish({ tgt, tgtType: opts.tgtType, fun: opts.fun, arg: opts.arg, delimiter: opts.delimiter, ret: opts.ret });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') {
        io.out('No minions matched the target. No command was sent, no jid was assigned.\n');
        io.err('ERROR: No return received\n');
        return EX_NO_MATCH;
      }
      throw err;
    }
    if (opts.async) {
      io.out(`Executed command with job ID: ${pub.jid}\n`);
      return EX_OK;
    }
    if (opts.verbose) io.out(`Executing job with jid ${pub.jid}\n-------------------------------------------\n\n`);
    else if (opts.showJid) io.out(`jid: ${pub.jid}\n`);

    let failed = false;
    const collected: Record<string, unknown> = {};
    const returned = new Set<string>();
    const show = (id: string, value: unknown) => {
      if (opts.static) collected[id] = value;
      else print(format({ [id]: value }));
    };
    for await (const ret of client.returns(pub, opts.timeoutSec * 1000)) {
      returned.add(ret.id);
      if (isFailure(ret)) failed = true;
      show(ret.id, ret.return);
    }
    const missing = pub.minions.filter((id) => !returned.has(id));
    for (const id of missing) show(id, noReturnMessage(pub.jid));
    if (opts.static) print(format(collected));
    if (missing.length > 0) failed = true;
    if (failed) {
      io.err('ERROR: Minions returned with non-zero exit code\n');
      return EX_GENERIC;
    }
    return EX_OK;
  } finally {
    client.close();
  }
}

function isFailure(ret: MinionReturn): boolean {
  if (ret.retcode !== 0 || !ret.success) return true;
  const r = ret.return as Record<string, unknown> | null;
  return typeof r === 'object' && r !== null && !Array.isArray(r) && (r.result === false || r.success === false);
}
