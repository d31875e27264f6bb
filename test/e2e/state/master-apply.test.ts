/**
 * State runs through a real brine master (corpus case 90 and a three-minion fleet): the minions
 * fetch the top file, SLS files and `salt://` templates from the master's file server (cached
 * in their cachedir, re-fetched only when the master's copy changed), render them with the
 * pillar the master compiled for them, run, and return; `salt` prints Salt's highstate output
 * and exit codes, byte for byte against the corpus after normalising its varying fields.
 *
 * One master and three minions serve every test of this file.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, watch, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, type RunResult } from '../../support/cluster';
import { CORPUS, normalise, shellSplit } from '../../support/state-corpus';

const CASE = join(CORPUS, '90-master-apply');
const SALTVEC = '/srv/saltvec';
const MINIONS = ['vec1', 'fleet2', 'fleet3'];

let cluster: Cluster;
let vec: string;
let extra: string;
const swap = (s: string): string => s.split(SALTVEC).join(vec);

/** Copies a corpus folder with the /srv/saltvec prefix rewritten to this test's root. */
function copyRewritten(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  for (const name of readdirSync(to)) {
    const p = join(to, name);
    writeFileSync(p, swap(readFileSync(p, 'utf8')));
  }
}

function writeExtra(rel: string, text: string): void {
  const path = join(extra, rel);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
}

function emptyWork(): void {
  rmSync(join(vec, 'work'), { recursive: true, force: true });
  mkdirSync(join(vec, 'work'));
}

beforeAll(async () => {
  cluster = await Cluster.create();
  vec = join(cluster.root, 'vec');
  extra = join(cluster.root, 'extra');
  mkdirSync(join(vec, 'work'), { recursive: true });
  copyRewritten(join(CASE, 'states'), join(vec, 'states'));
  copyRewritten(join(CASE, 'pillar'), join(vec, 'pillar'));
  // A second root of base for the fleet tests; the corpus's own files are not changed.
  writeExtra(
    'fleet/init.sls',
    [
      "{% from 'fleet/map.jinja' import port %}",
      `${vec}/work/fleet-{{ grains['id'] }}.conf:`,
      '  file.managed:',
      '    - source: salt://fleet/app.conf.j2',
      '    - template: jinja',
      '    - context:',
      '        port: {{ port }}',
      'fleet-echo:',
      '  cmd.run:',
      "    - name: echo configured {{ grains['id'] }}",
      '    - onchanges:',
      `      - file: ${vec}/work/fleet-{{ grains['id'] }}.conf`,
      '',
    ].join('\n'),
  );
  writeExtra('fleet/map.jinja', '{% set port = 8080 %}\n');
  writeExtra('fleet/app.conf.j2', "id={{ grains['id'] }} k={{ pillar['k'] }} port={{ port }}\n");
  const masterConf = join(cluster.masterDir, 'master');
  writeFileSync(
    masterConf,
    `${readFileSync(masterConf, 'utf8')}file_roots:\n  base:\n    - ${vec}/states\n    - ${extra}\npillar_roots:\n  base:\n    - ${vec}/pillar\n`,
  );
  await cluster.startMaster();
  await cluster.startAccepted(MINIONS.map((id) => ({ id })));
}, 120_000);

afterAll(async () => {
  await cluster?.stop();
});

/** The commands of case 90 in their stored order, with each one's stored exit code. */
function caseCommands(): { file: string; bin: string; args: string[]; reset: boolean; code: number }[] {
  const codes = new Map(
    readFileSync(join(CASE, 'retcodes.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((p) => p.length >= 2)
      .map((p) => [p[0], Number(p[1])] as const),
  );
  return readFileSync(join(CASE, 'commands.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.includes(': '))
    .map((line) => {
      const file = line.slice(0, line.indexOf(': '));
      const reset = !line.includes('(work/ NOT reset)');
      const words = shellSplit(line.slice(file.length + 2).replace(/\s+\(work\/ NOT reset\)$/, ''));
      // `salt -c <mconf> ...` / `salt-call -c <conf> ...`: the config dir is this cluster's.
      return { file, bin: words[0], args: words.slice(3).map(swap), reset, code: codes.get(file)! };
    });
}

describe('case 90: state.apply through a brine master', () => {
  it('prints what Salt 3007 prints, with its exit codes, for every stored command', async () => {
    for (const cmd of caseCommands()) {
      if (cmd.reset) emptyWork();
      const res: RunResult =
        cmd.bin === 'salt-call' ? await cluster.run('salt-call', cmd.args, cluster.minionDir('vec1')) : await cluster.salt(...cmd.args);
      const expected = normalise(swap(readFileSync(join(CASE, cmd.file), 'utf8')));
      expect(normalise(res.stdout), `${cmd.file}\nstderr: ${res.stderr}`).toBe(expected);
      expect(res.code, `${cmd.file} exit code`).toBe(cmd.code);
      const stderrFile = join(CASE, `${cmd.file}.stderr`);
      if (existsSync(stderrFile)) expect(res.stderr, `${cmd.file}.stderr`).toBe(readFileSync(stderrFile, 'utf8'));
    }
  }, 240_000);
});

/**
 * Resolves with the jid of the first job in a minion's proc dir (Salt's `<cachedir>/proc/<jid>`
 * records) whose record names `fun` and is not in `skip`: watches the directory, no polling.
 */
function procJob(id: string, fun: string, skip: string[] = []): Promise<string> {
  const dir = join(cluster.root, 'minions', id, 'var', 'cache', 'salt', 'minion', 'proc');
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    const check = (): void => {
      for (const jid of readdirSync(dir)) {
        let record = '';
        try {
          record = readFileSync(join(dir, jid), 'latin1');
        } catch {
          continue; // removed meanwhile
        }
        if (!skip.includes(jid) && record.includes(fun)) {
          watcher.close();
          resolve(jid);
          return;
        }
      }
    };
    const watcher = watch(dir, check);
    check();
  });
}

/** The returns of a `--out json` run, merged (one document per minion). */
function jsonReturns(res: RunResult): Record<string, Record<string, Record<string, unknown>>> {
  const docs = res.stdout.trim().split(/\n(?=\{)/);
  return Object.assign({}, ...docs.map((d) => JSON.parse(d)));
}

describe('three minions applying one state tree', () => {
  const confOf = (id: string): string => join(vec, 'work', `fleet-${id}.conf`);

  it("renders salt:// templates with each minion's grains and pillar, and re-applies with no changes", async () => {
    emptyWork();
    const first = await cluster.salt('*', 'state.apply', 'fleet', '--out', 'json');
    expect(first.code, first.stderr).toBe(0);
    const rets = jsonReturns(first);
    expect(Object.keys(rets).sort()).toEqual([...MINIONS].sort());
    for (const id of MINIONS) {
      expect(readFileSync(confOf(id), 'utf8')).toBe(`id=${id} k=from-master-pillar port=8080\n`);
      const results = Object.values(rets[id]);
      expect(results.map((r) => [r.result, Object.keys(r.changes as object).length > 0])).toEqual([
        [true, true],
        [true, true],
      ]);
      // The minion cached what it fetched, under its own cachedir.
      const cached = join(cluster.root, 'minions', id, 'var', 'cache', 'salt', 'minion', 'files', 'base');
      expect(readFileSync(join(cached, 'fleet', 'app.conf.j2'), 'utf8')).toContain('port={{ port }}');
      expect(existsSync(join(cached, 'fleet', 'map.jinja'))).toBe(true);
    }

    const again = await cluster.salt('*', 'state.apply', 'fleet', '--no-color');
    expect(again.code, again.stderr).toBe(0);
    for (const id of MINIONS) {
      expect(again.stdout).toContain(`\nSummary for ${id}\n------------\nSucceeded: 2\nFailed:    0\n`);
    }
    expect(again.stdout).toContain('State was not run because none of the onchanges reqs changed');
  }, 120_000);

  it('sees a template changed on the master: test=True predicts the diff and changes nothing, then apply writes it', async () => {
    writeExtra('fleet/app.conf.j2', "id={{ grains['id'] }} k={{ pillar['k'] }} port={{ port }}\nworkers=4\n");
    const dry = await cluster.salt('*', 'state.apply', 'fleet', 'test=True', '--out', 'json');
    expect(dry.code, dry.stderr).toBe(0);
    for (const [id, results] of Object.entries(jsonReturns(dry))) {
      const managed = results[`file_|-${confOf(id)}_|-${confOf(id)}_|-managed`];
      expect(managed.result).toBeNull();
      expect((managed.changes as { diff: string }).diff).toContain('+workers=4');
      expect(readFileSync(confOf(id), 'utf8')).not.toContain('workers');
    }
    const real = await cluster.salt('*', 'state.apply', 'fleet', '--state-output=terse', '--no-color');
    expect(real.code, real.stderr).toBe(0);
    for (const id of MINIONS) {
      expect(readFileSync(confOf(id), 'utf8')).toBe(`id=${id} k=from-master-pillar port=8080\nworkers=4\n`);
      expect(real.stdout).toContain(`  Name: ${confOf(id)} - Function: file.managed - Result: Changed`);
    }
  }, 120_000);

  it("fails with exit 1 and Salt's message when one minion's state fails, and lookup_jid prints highstate", async () => {
    const res = await cluster.salt('*', 'state.apply', 'failing', '--show-jid', '--no-color');
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('ERROR: Minions returned with non-zero exit code\n');
    const jid = /^jid: (\d+)$/m.exec(res.stdout)![1];
    const lookup = await cluster.run('salt-run', ['jobs.lookup_jid', jid, '--no-color']);
    expect(lookup.code, lookup.stderr).toBe(0);
    for (const id of MINIONS) expect(lookup.stdout).toContain(`Summary for ${id}\n------------\nSucceeded: 1 (changed=1)\nFailed:    1\n`);
  }, 120_000);

  it('salt-run state.orchestrate runs an orchestration on the master: jobs to the minions in requisite order, highstate output, exit 1 on failure', async () => {
    writeExtra(
      'orch/fleet.sls',
      [
        'ping:',
        '  salt.function:',
        '    - name: test.ping',
        "    - tgt: 'fleet*'",
        'configure:',
        '  salt.state:',
        "    - tgt: 'fleet*'",
        '    - sls: fleet',
        '    - require:',
        '      - salt: ping',
        '',
      ].join('\n'),
    );
    writeExtra(
      'orch/broken.sls',
      ['exit-3:', '  salt.function:', '    - name: cmd.run', '    - tgt: fleet2', '    - arg:', "      - 'exit 3'", ''].join('\n'),
    );
    // The orchestration's minions' files go, so that it changes them (vec1's stay for the tests after).
    for (const id of ['fleet2', 'fleet3']) rmSync(join(vec, 'work', `fleet-${id}.conf`), { force: true });
    const res = await cluster.run('salt-run', ['state.orchestrate', 'orch.fleet', '--no-color']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^\S+_master:\n/);
    // The minions in the order their returns came, as Salt's saltutil.cmd gives them.
    const both = '(fleet2, fleet3|fleet3, fleet2)';
    expect(res.stdout).toMatch(
      new RegExp(
        `          ID: ping\\n    Function: salt\\.function\\n        Name: test\\.ping\\n      Result: True\\n     Comment: Function ran successfully\\. Function test\\.ping ran on ${both}\\.\\n`,
      ),
    );
    expect(res.stdout).toMatch(
      new RegExp(
        `          ID: configure\\n    Function: salt\\.state\\n      Result: True\\n     Comment: States ran successfully\\. Updating ${both}\\.\\n`,
      ),
    );
    expect(res.stdout).toMatch(/Succeeded: 2 \(changed=2\)\nFailed:    0\n/);
    for (const id of ['fleet2', 'fleet3'])
      expect(readFileSync(join(vec, 'work', `fleet-${id}.conf`), 'utf8')).toMatch(new RegExp(`^id=${id} k=from-master-pillar port=8080\n`));
    const broken = await cluster.run('salt-run', ['state.orch', 'orch.broken', '--no-color']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('     Comment: Running function cmd.run failed on minions: fleet2 Function cmd.run ran on fleet2.\n');
  }, 120_000);

  it('salt -b 2 runs the highstate two minions at a time and prints each return as highstate', async () => {
    const res = await cluster.salt('-b', '2', '*', 'state.apply', 'fleet', '--no-color');
    expect(res.code, res.stderr).toBe(0);
    // Sorted ids, a sliding window of two: the first two start together, the third when one ends.
    expect(res.stdout.startsWith("\nExecuting run on ['fleet2', 'fleet3']\n\n"), res.stdout).toBe(true);
    expect(res.stdout).toContain("\nExecuting run on ['vec1']\n\n");
    for (const id of MINIONS) {
      // Salt's batch display: {retcode, jid, id: return} through the highstate outputter.
      expect(res.stdout).toMatch(
        new RegExp(`retcode:\\n    0\\njid:\\n    \\d{20}\\n${id}:\\n----------\\n          ID: ${vec}/work/fleet-${id}\\.conf\\n`),
      );
      expect(res.stdout).toContain(`\nSummary for ${id}\n------------\nSucceeded: 2\nFailed:    0\n`);
    }
  }, 120_000);

  it('a salt-call state run on a minion whose daemon runs a state job is refused with Salt’s message; queue=True waits for it', async () => {
    const gate = join(cluster.root, 'gate');
    expect(spawnSync('mkfifo', [gate]).status).toBe(0);
    // The daemon's state job blocks reading the fifo until the test writes to it.
    const published = await cluster.salt('vec1', 'state.single', 'cmd.run', `cat ${gate}`, '--async');
    expect(published.code, published.stderr).toBe(0);
    const daemonJid = /job ID: (\d+)/.exec(published.stdout)![1];
    expect(await procJob('vec1', 'state.single')).toBe(daemonJid);

    const refused = await cluster.run('salt-call', ['state.apply', 'fleet', '--no-color'], cluster.minionDir('vec1'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      new RegExp(`^    The function "state\\.single" is running as PID \\d+ and was started at .+ with jid ${daemonJid}$`, 'm'),
    );
    // queue=True: this salt-call (recorded in the proc dir itself) waits for the daemon's job.
    const queued = cluster.run(
      'salt-call',
      ['state.single', 'test.succeed_without_changes', 'after', 'queue=True', '--no-color'],
      cluster.minionDir('vec1'),
    );
    await procJob('vec1', 'state.single', [daemonJid]);
    await writeFile(gate, 'go\n');
    const done = await queued;
    expect(done.code, done.stdout + done.stderr).toBe(0);
    expect(done.stdout).toContain('Comment: Success!');
  }, 120_000);
});

describe('file.recurse through the master', () => {
  it("copies a salt:// directory listed and fetched from the master's file server, templates rendered", async () => {
    const dest = join(vec, 'work', 'recursed');
    const res = await cluster.salt(
      'vec1',
      'state.single',
      'file.recurse',
      dest,
      'source=salt://fleet',
      'include_pat=*.j2',
      'template=jinja',
      'defaults={"port": 9}',
      '--out',
      'json',
    );
    expect(res.code, res.stdout + res.stderr).toBe(0);
    const ret = Object.values(JSON.parse(res.stdout).vec1 as Record<string, { result: boolean; changes: Record<string, unknown> }>)[0];
    expect(ret.result).toBe(true);
    expect(Object.keys(ret.changes)).toEqual([`${dest}/app.conf.j2`]);
    expect(readFileSync(join(dest, 'app.conf.j2'), 'utf8')).toMatch(/^id=vec1 k=\S+ port=9\n/);
  }, 60_000);
});
