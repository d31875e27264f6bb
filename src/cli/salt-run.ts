import { LocalClient, type MasterAddress } from '../core/master/local-client';
import { KeyStore } from '../core/master/key-store';
import { BrineError } from '../core/errors';
import { formatOutput, type Outputter } from './output';
import { CliError } from './errors';
import type { Io } from './salt';

export interface RunnerOptions {
  master: MasterAddress & { pki_dir: string };
  fun: string;
  arg: unknown[];
  timeoutSec: number;
  out: Outputter;
}

/** Pings every accepted minion and splits them by whether they answered, as Salt's manage runner does. */
async function status(master: RunnerOptions['master'], timeoutSec: number): Promise<{ up: string[]; down: string[] }> {
  const accepted = new KeyStore({ pkiDir: master.pki_dir }).list('accepted');
  if (accepted.length === 0) return { up: [], down: [] };
  const client = await LocalClient.connect(master);
  try {
    let pub;
    try {
      pub = await client.publish({ tgt: '*', tgtType: 'glob', fun: 'test.ping', arg: [] });
    } catch (err) {
      if (err instanceof BrineError && err.code === 'NO_MINIONS') return { up: [], down: accepted };
      throw err;
    }
    const up = new Set<string>();
    for await (const ret of client.returns(pub, timeoutSec * 1000)) up.add(ret.id);
    return { up: accepted.filter((id) => up.has(id)), down: accepted.filter((id) => !up.has(id)) };
  } finally {
    client.close();
  }
}

const RUNNERS: Record<string, (o: RunnerOptions) => Promise<unknown>> = {
  'manage.status': (o) => status(o.master, o.timeoutSec),
  'manage.up': async (o) => (await status(o.master, o.timeoutSec)).up,
  'manage.down': async (o) => (await status(o.master, o.timeoutSec)).down,
};

/** `salt-run FUN`: runner functions run on the master's host with the master's configuration. */
export async function runRunner(opts: RunnerOptions, io: Io): Promise<number> {
  const runner = RUNNERS[opts.fun];
  if (!runner) {
    throw new CliError(`'${opts.fun}' is not available.`, 1, { hint: `Runner functions here: ${Object.keys(RUNNERS).join(', ')}` });
  }
  const result = await runner(opts);
  const text = formatOutput(opts.out, result, {});
  if (text !== '') io.out(text.endsWith('\n') ? text : `${text}\n`);
  return 0;
}
