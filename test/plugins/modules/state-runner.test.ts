/**
 * The state runner's features, in process (a harness, no daemons): one state run at a time
 * (Salt's refusal message, `state.running`, `queue=True`, `concurrent=True`), and the `listen` /
 * `listen_in` / `use` / `use_in` requisites against a real Salt 3007.10's output.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '../../../src/core/protocol/msgpack';
import { describe, expect, it } from 'vitest';
import { State, StateModule, arg, type StateReturn } from 'brine/plugin';
import { createHarness } from 'brine/testing';
import { BUILTIN_PLUGINS } from '../../../src/plugins/builtins';
import { formatHighstate } from '../../../src/cli/output/highstate';
import { normalise } from '../../support/state-corpus';

/** A gate a test opens by hand: `entered` settles when a state reached it. */
function gate(): { entered: Promise<void>; enter(): void; open(): void; opened: Promise<void> } {
  let enter!: () => void;
  let open!: () => void;
  const entered = new Promise<void>((r) => (enter = r));
  const opened = new Promise<void>((r) => (open = r));
  return { entered, enter, open, opened };
}

let current = gate();
const order: string[] = [];

@StateModule('blocker')
class BlockerStates {
  @State({ summary: 'Waits until the test opens the gate', args: { name: arg.string() } })
  async wait({ name }: { name: string }): Promise<StateReturn> {
    current.enter();
    await current.opened;
    order.push(`end ${name}`);
    return { name, changes: {}, result: true, comment: 'opened' };
  }

  @State({ summary: 'Records that it ran', args: { name: arg.string() } })
  mark({ name }: { name: string }): StateReturn {
    order.push(`ran ${name}`);
    return { name, changes: {}, result: true, comment: 'marked' };
  }
}

const LINE =
  /^The function "state\.single" is running as PID \d+ and was started at \d{4}, [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d{6} with jid (\d{20})$/;

describe('one state run at a time', () => {
  it('refuses a second run with Salt’s message, lists it in state.running, and queue=True waits for it', async () => {
    const h = await createHarness({ modules: [...BUILTIN_PLUGINS, BlockerStates], pillar: {} });
    current = gate();
    order.length = 0;
    const first = h.call('state.single', ['blocker.wait', 'first']);
    await current.entered;
    const firstJid = h.runtime.runningJobs()[0].jid;

    const refused = await h.call('state.single', ['blocker.mark', 'second']);
    expect(refused.retcode).toBe(1);
    expect(refused.return).toEqual([expect.stringMatching(LINE)]);
    expect(LINE.exec((refused.return as string[])[0])![1]).toBe(firstJid);
    const shown = await h.call('state.show_top');
    expect(shown.return).toEqual(refused.return);
    expect((await h.call('state.running')).return).toEqual(refused.return);
    // concurrent=True runs alongside, and state.running concurrent=True reports nothing.
    expect((await h.call('state.running', [], { concurrent: true })).return).toEqual([]);
    const alongside = await h.call('state.single', ['blocker.mark', 'alongside'], { concurrent: true });
    expect(alongside.retcode).toBe(0);

    // queue=True: waits on the first run (seen as it asks when that run ends), then runs.
    const waitsFor: string[] = [];
    const jobFinished = h.runtime.jobFinished.bind(h.runtime);
    const asked = gate();
    h.runtime.jobFinished = (jid: string) => {
      waitsFor.push(jid);
      asked.enter();
      return jobFinished(jid);
    };
    const queued = h.call('state.single', ['blocker.mark', 'queued'], { queue: true });
    await asked.entered;
    expect(waitsFor).toEqual([firstJid]);
    expect(order).toEqual(['ran alongside']);
    current.open();
    expect((await first).retcode).toBe(0);
    const done = await queued;
    expect(done.retcode).toBe(0);
    expect(order).toEqual(['ran alongside', 'end first', 'ran queued']);
    expect((await h.call('state.running')).return).toEqual([]);
  });

  it('queue=N waits unless N state runs wait already, then refuses', async () => {
    const h = await createHarness({ modules: [...BUILTIN_PLUGINS, BlockerStates], pillar: {} });
    current = gate();
    const first = h.call('state.single', ['blocker.wait', 'first']);
    await current.entered;
    const refused = await h.call('state.single', ['blocker.mark', 'x'], { queue: 1 });
    expect(refused.retcode).toBe(1);
    expect(refused.return).toEqual([expect.stringMatching(LINE)]);
    current.open();
    await first;
    // The minion option state_queue does what queue= does.
    const h2 = await createHarness({ modules: [...BUILTIN_PLUGINS, BlockerStates], pillar: {}, config: { state_queue: true } });
    current = gate();
    const a = h2.call('state.single', ['blocker.wait', 'a']);
    await current.entered;
    const b = h2.call('state.single', ['blocker.mark', 'b']);
    current.open();
    expect((await a).retcode).toBe(0);
    expect((await b).retcode).toBe(0);
  });
});

describe('state.single of a state function that is not there', () => {
  it("answers Salt's verify_data list, retcode 1, with no result dict (salt-call --local of Salt 3007.10)", async () => {
    const h = await createHarness({ modules: [...BUILTIN_PLUGINS, BlockerStates], pillar: {} });
    expect(await h.call('state.single', ['nosuch.run', 'x'])).toMatchObject({
      return: ["Specified state 'nosuch.run' was not found"],
      retcode: 1,
    });
    expect(await h.call('state.single', ['blocker.mark', 'here'])).toMatchObject({ retcode: 0 });
  });
});

describe('one state run at a time across processes (the minion proc dir)', () => {
  it('a state job another process records in <cachedir>/proc refuses a run here, queue=True waits for its end, a stale record is dropped', async () => {
    const cachedir = mkdtempSync(join(tmpdir(), 'brine-proc-'));
    // Another salt process on the machine (its command line names salt, as Salt's _check_cmdline wants).
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)', 'salt-minion'], { stdio: 'ignore' });
    try {
      await new Promise((resolve, reject) => other.once('spawn', resolve).once('error', reject));
      const procDir = join(cachedir, 'proc');
      mkdirSync(procDir);
      // Older than the harness's jids (2024...): queue=True waits for it.
      const otherJid = '20231203120000000001';
      const record = join(procDir, otherJid);
      // What Salt's minion writes for a job process: {pid, ...publication} in msgpack.
      writeFileSync(
        record,
        encode({ pid: other.pid, fun: 'state.apply', arg: [], tgt: '*', jid: otherJid, ret: '', tgt_type: 'glob', user: 'root' }),
      );
      const h = await createHarness({ modules: [...BUILTIN_PLUGINS, BlockerStates], pillar: {}, config: { cachedir } });
      order.length = 0;
      const refused = await h.call('state.single', ['blocker.mark', 'second']);
      expect(refused.retcode).toBe(1);
      expect(refused.return).toEqual([
        `The function "state.apply" is running as PID ${other.pid} and was started at 2023, Dec 03 12:00:00.000001 with jid ${otherJid}`,
      ]);
      expect((await h.call('state.running')).return).toEqual(refused.return);
      expect(order).toEqual([]);

      // This process's own job is in the proc dir while it runs, for the other processes.
      current = gate();
      const mine = h.call('state.single', ['blocker.wait', 'mine'], { concurrent: true });
      await current.entered;
      const [own] = h.runtime.runningJobs().filter((j) => j.pid === process.pid);
      expect(existsSync(join(procDir, own.jid))).toBe(true);
      current.open();
      expect((await mine).retcode).toBe(0);
      expect(existsSync(join(procDir, own.jid))).toBe(false);

      // queue=True waits until the other process's job ends (its record removed), then runs.
      const asked = gate();
      const jobFinished = h.runtime.jobFinished.bind(h.runtime);
      h.runtime.jobFinished = (jid: string, signal?: AbortSignal) => {
        asked.enter();
        return jobFinished(jid, signal);
      };
      const queued = h.call('state.single', ['blocker.mark', 'queued'], { queue: true });
      await asked.entered;
      expect(order).toEqual(['end mine']);
      rmSync(record);
      expect((await queued).retcode).toBe(0);
      expect(order).toEqual(['end mine', 'ran queued']);

      // A record whose process ended is stale: removed, not a running job.
      other.kill();
      await new Promise((resolve) => other.once('exit', resolve));
      writeFileSync(record, encode({ pid: other.pid, fun: 'state.apply', jid: otherJid }));
      expect((await h.call('state.running')).return).toEqual([]);
      expect(existsSync(record)).toBe(false);
    } finally {
      other.kill();
      rmSync(cachedir, { recursive: true, force: true });
    }
  });
});

describe('listen, listen_in, use and use_in', () => {
  const dir = join(__dirname, '../../core/state/fixtures/listen-use');

  it('run the listeners’ mod_watch after every state, as listener_<ID>, with Listen_Error for unknown states, as Salt 3007', async () => {
    const h = await createHarness({ pillar: {}, config: { file_client: 'local', file_roots: { base: [join(dir, 'states')] } } });
    const res = await h.call('state.apply', ['lsn']);
    expect(res.retcode).toBe(2);
    const ret = res.return as Record<string, Record<string, unknown>>;
    expect(normalise(JSON.stringify({ local: ret }, null, 4)) + '\n').toBe(normalise(readFileSync(join(dir, 'out.json'), 'utf8')));
    expect(normalise(formatHighstate({ local: ret }) + '\n')).toBe(normalise(readFileSync(join(dir, 'out.highstate.txt'), 'utf8')));
  });
});
