/**
 * State runs, as the state issue measures them: the whole-process CPU time (user + system,
 * children included) of `salt-call --local state.apply <sls>` for the corpus's larger cases
 * (../shared/salt-states), brine's against the reference Salt 3007's on the same tree in the same
 * run (Salt installed by ../shared/salt-ref/setup.sh under $HOME/.cache/brine-salt-ref). Each
 * case's tree is made as the corpus README says (states/, pillar/, setup.sh, /srv/saltvec
 * rewritten); each side runs once to warm up (the first, changing run), then the median of RUNS
 * (re-applies on that tree).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { binArgv } from '../scripts/cluster';
import { cpuMedian, RUNS } from './render-bench';

const CASES_DIR = resolve(__dirname, '..', '..', '..', 'shared', 'salt-states', 'cases');
/** The corpus's cases with the most states among those that need no package manager and succeed (exit 0). */
const CASES = ['10-cmd-run', '03-file-edit', '01-file-basic', '21-req-watch'];

export interface StateBenchRow {
  name: string;
  states: number;
  brineCpuMs: number;
  saltCpuMs: number | null;
}

/** A fresh tree for one case under `root` (the corpus's /srv/saltvec rewritten to it); its salt-call arguments. */
export function makeCase(name: string, root: string): string[] {
  const dir = join(CASES_DIR, name);
  for (const d of ['conf', 'states', 'pillar', 'work', 'root']) mkdirSync(join(root, d), { recursive: true });
  for (const d of ['states', 'pillar']) if (existsSync(join(dir, d))) cpSync(join(dir, d), join(root, d), { recursive: true });
  const rewrite = (path: string): void => {
    for (const e of readdirSync(path, { withFileTypes: true })) {
      const p = join(path, e.name);
      if (e.isDirectory()) rewrite(p);
      else writeFileSync(p, readFileSync(p, 'utf8').split('/srv/saltvec').join(root));
    }
  };
  rewrite(join(root, 'states'));
  writeFileSync(
    join(root, 'conf', 'minion'),
    `root_dir: ${root}/root\nfile_client: local\nfile_roots:\n  base:\n    - ${root}/states\npillar_roots:\n  base:\n    - ${root}/pillar\nid: vec1\nuser: root\n`,
  );
  if (existsSync(join(dir, 'setup.sh'))) spawnSync('bash', [join(dir, 'setup.sh')], { cwd: root, stdio: 'ignore' });
  const words = readFileSync(join(dir, 'command.txt'), 'utf8').trim().split(/\s+/);
  return ['-c', join(root, 'conf'), ...words.filter((w, i) => !(w === '--out' || words[i - 1] === '--out')), '--out', 'quiet'];
}

function cpuOf(argv: (root: string) => string[]): number {
  const root = mkdtempSync(join(tmpdir(), 'brine-state-bench-'));
  try {
    return cpuMedian(argv(root), '/');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function runStateBench(): StateBenchRow[] {
  const brine = [process.execPath, ...binArgv('salt-call')];
  const saltBin = join(homedir(), '.cache', 'brine-salt-ref', 'bin', 'salt-call');
  const salt = existsSync(saltBin) ? [saltBin] : null;
  return CASES.map((name) => {
    const states = (readFileSync(join(CASES_DIR, name, 'out.json'), 'utf8').match(/"__run_num__"/g) ?? []).length;
    const brineCpuMs = cpuOf((root) => [...brine, ...makeCase(name, root)]);
    const saltCpuMs = salt ? cpuOf((root) => [...salt, ...makeCase(name, root)]) : null;
    return { name, states, brineCpuMs, saltCpuMs };
  });
}

/** Lines for the report. */
export function stateBenchLines(rows: StateBenchRow[]): string[] {
  return rows.map((r) => {
    const salt =
      r.saltCpuMs === null
        ? 'Salt 3007 not installed (../shared/salt-ref/setup.sh ~/.cache/brine-salt-ref)'
        : `Salt 3007 ${r.saltCpuMs.toFixed(0)} ms CPU, brine ${(r.saltCpuMs / r.brineCpuMs).toFixed(1)}x less (target: at most a fifth)`;
    return `salt-call --local state.apply, corpus ${r.name} (${r.states} states): brine ${r.brineCpuMs.toFixed(0)} ms CPU; ${salt} (median of ${RUNS} whole processes)`;
  });
}

if (require.main === module) {
  process.stdout.write(`${stateBenchLines(runStateBench()).join('\n')}\n`);
}
