/**
 * A fleet applying states, as the state issue measures it: N minions (20) each applying one SLS
 * of 50 file states (half `contents`, half a `salt://` Jinja template fetched from the master),
 * wall time of `salt '*' state.apply` from the command's start to its exit with every return in,
 * brine's master and minions against the reference Salt 3007's (../shared/salt-ref/setup.sh under
 * $HOME/.cache/brine-salt-ref) on the same machine in the same run. Both sides are real daemons
 * (one master, N minion processes, auto_accept) on loopback; the first apply writes every file,
 * then the median of RUNS re-applies (nothing changes). Every return is checked: N minions, 50
 * states each, all `result: True`.
 *
 * Standalone: `node dist/bench/fleet-state-bench.js [minions]`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchError } from './bench-error';
import { Cluster, freePort, type RunResult } from '../scripts/cluster';
import { runSalt, saltRefInstalled, startSalt, writeSaltMasterConfig, writeSaltMinionConfig, type SaltDaemon } from '../scripts/salt-ref';
import { median } from './render-bench';

export const FLEET_MINIONS = 20;
const STATES = 50;
const RUNS = 3;
const READY_MS = 300_000;

export interface FleetSide {
  /** Wall time of the first apply (every file written), ms. */
  firstMs: number;
  /** Median wall time of the re-applies (no changes), ms. */
  againMs: number;
}

export interface FleetStateResult {
  minions: number;
  states: number;
  brine: FleetSide;
  salt: FleetSide | null;
}

/** The SLS tree: `fleet/init.sls` and its template, writing under `work`. */
function writeTree(dir: string, work: string): void {
  mkdirSync(join(dir, 'fleet'), { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < STATES; i++) {
    lines.push(`${work}/{{ grains['id'] }}/f${i}.conf:`, '  file.managed:', '    - makedirs: True');
    if (i % 2 === 0) lines.push(`    - contents: "file ${i} of {{ grains['id'] }}"`);
    else lines.push('    - source: salt://fleet/app.conf.j2', '    - template: jinja', '    - context:', `        n: ${i}`);
  }
  writeFileSync(join(dir, 'fleet', 'init.sls'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'fleet', 'app.conf.j2'), "# {{ grains['id'] }}, file {{ n }}\nport = {{ 8000 + n }}\n");
}

/** Throws unless every minion returned STATES successful results. */
function check(side: string, res: RunResult, ids: string[]): void {
  let rets: Record<string, unknown> = {};
  try {
    for (const doc of res.stdout.trim().split(/\n(?=\{)/)) rets = { ...rets, ...(JSON.parse(doc) as Record<string, unknown>) };
  } catch {
    throw new BenchError(
      'BENCH_FLEET',
      `${side}: state.apply printed no JSON (exit ${res.code}): ${res.stdout.slice(0, 500)} ${res.stderr.slice(0, 500)}`,
    );
  }
  for (const id of ids) {
    const results = Object.values((rets[id] ?? {}) as Record<string, { result?: unknown }>);
    const ok = results.filter((r) => r && r.result === true).length;
    if (ok !== STATES)
      throw new BenchError(
        'BENCH_FLEET',
        `${side}: ${id} returned ${ok} successful states of ${STATES}: ${JSON.stringify(rets[id]).slice(0, 500)}`,
      );
  }
}

async function timeRuns(side: string, ids: string[], apply: () => Promise<RunResult>): Promise<FleetSide> {
  const timed = async (): Promise<number> => {
    const start = performance.now();
    const res = await apply();
    const ms = performance.now() - start;
    check(side, res, ids);
    return ms;
  };
  const firstMs = await timed();
  const again: number[] = [];
  for (let i = 0; i < RUNS; i++) again.push(await timed());
  return { firstMs, againMs: median(again) };
}

async function brineSide(root: string, ids: string[]): Promise<FleetSide> {
  const states = join(root, 'brine-states');
  writeTree(states, join(root, 'brine-work'));
  const cluster = await Cluster.create({ auto_accept: true, timeout: 60, file_roots: { base: [states] } });
  try {
    await cluster.startMaster();
    // A few at a time: twenty Node processes starting at once on a busy machine outlast startMinion's wait.
    for (let i = 0; i < ids.length; i += 5) {
      await Promise.all(ids.slice(i, i + 5).map((id) => cluster.startMinion({ id }, 'is ready')));
    }
    return await timeRuns('brine', ids, () => cluster.salt('*', 'state.apply', 'fleet', '--out', 'json', '--static'));
  } finally {
    await cluster.stop();
  }
}

async function saltSide(root: string, ids: string[]): Promise<FleetSide> {
  const states = join(root, 'salt-states');
  writeTree(states, join(root, 'salt-work'));
  const ports = { publish: await freePort(), ret: await freePort() };
  const masterDir = writeSaltMasterConfig(root, ports, { auto_accept: true, timeout: 60, file_roots: { base: [states] } });
  const daemons: SaltDaemon[] = [startSalt('salt-master', 'salt-master', masterDir)];
  try {
    const minions = ids.map((id) => startSalt(id, 'salt-minion', writeSaltMinionConfig(root, id, ports.ret)));
    daemons.push(...minions);
    await Promise.all(minions.map((m) => m.waitFor('Minion is ready to receive requests!', READY_MS)));
    return await timeRuns('Salt 3007', ids, () =>
      runSalt('salt', masterDir, ['*', 'state.apply', 'fleet', '--out', 'json', '--static'], READY_MS),
    );
  } finally {
    await Promise.all(daemons.map((d) => d.stop()));
  }
}

export async function runFleetStateBench(minions = FLEET_MINIONS): Promise<FleetStateResult> {
  const ids = Array.from({ length: minions }, (_, i) => `fleet${String(i + 1).padStart(2, '0')}`);
  const root = mkdtempSync(join(tmpdir(), 'brine-fleet-bench-'));
  try {
    const brine = await brineSide(root, ids);
    const salt = saltRefInstalled() ? await saltSide(root, ids) : null;
    return { minions, states: STATES, brine, salt };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Lines for the report. */
export function fleetStateLines(r: FleetStateResult): string[] {
  const head = `${r.minions} minions x ${r.states} file states, salt '*' state.apply wall time`;
  const ms = (x: number): string => `${(x / 1000).toFixed(2)} s`;
  if (!r.salt) {
    return [
      `${head}: brine first apply ${ms(r.brine.firstMs)}, re-apply ${ms(r.brine.againMs)}; Salt 3007 not installed (../shared/salt-ref/setup.sh ~/.cache/brine-salt-ref)`,
    ];
  }
  const x = (b: number, s: number): string => `${(s / b).toFixed(1)}x sooner`;
  return [
    `${head}, first apply: brine ${ms(r.brine.firstMs)}, Salt 3007 ${ms(r.salt.firstMs)} (${x(r.brine.firstMs, r.salt.firstMs)}; target 5x)`,
    `${head}, re-apply (median of ${RUNS}): brine ${ms(r.brine.againMs)}, Salt 3007 ${ms(r.salt.againMs)} (${x(r.brine.againMs, r.salt.againMs)}; target 5x)`,
  ];
}

if (require.main === module) {
  const n = Number(process.argv[2] ?? FLEET_MINIONS);
  runFleetStateBench(n).then(
    (r) => process.stdout.write(`${fleetStateLines(r).join('\n')}\n`),
    (err) => {
      process.stderr.write(`fleet state bench failed: ${(err as Error)?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
