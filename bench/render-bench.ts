/**
 * Rendering a 200-line SLS with loops, macros and imports, as the render issue measures it: the
 * whole-process CPU time (user + system, children included) of
 * `salt-call --local state.show_sls bench`, brine's against the reference Salt 3007's on the same
 * tree in the same run (Salt is installed by ../shared/salt-ref/setup.sh under
 * $HOME/.cache/brine-salt-ref). Each side runs once to warm the disk cache, then the median of
 * RUNS. brine's render alone (renderFile in-process, warm) is reported beside it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { binArgv } from '../scripts/cluster';
import { renderFile } from '../src/core/render';

export const RUNS = 5;

export interface RenderBenchResult {
  lines: number;
  /** renderFile in-process after a warm-up, median ms. */
  brineRenderMs: number;
  /** salt-call --local state.show_sls: CPU ms (user + sys) of the whole process, median. */
  brineCpuMs: number;
  saltCpuMs: number | null;
  /** saltCpuMs / brineCpuMs. */
  speedup: number | null;
}
export function makeTree(): { root: string; sls: string } {
  const root = mkdtempSync(join(tmpdir(), 'brine-render-bench-'));
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(
    join(root, 'bench', 'map.jinja'),
    "{% set settings = {'port': 8080, 'users': ['alice', 'bob', 'carol']} %}\n{% macro line(k, v) %}{{ k }}={{ v }}{% endmacro %}\n",
  );
  writeFileSync(join(root, 'bench', 'defaults.yaml'), 'app:\n  name: bench\n  workers: 4\n');
  const lines = [
    "{% from 'bench/map.jinja' import settings, line with context %}",
    "{% import_yaml 'bench/defaults.yaml' as defaults %}",
    '{% macro svc(name, port) -%}',
    '{{ name }}:',
    '  test.configurable_test_state:',
    '    - changes: False',
    '    - comment: "{{ name }} on {{ port }} {{ line(\'w\', defaults.app.workers) }}"',
    '{%- endmacro %}',
  ];
  let n = 0;
  while (lines.length < 196) {
    lines.push(`{% for u in settings.users %}`);
    lines.push(`user-${n}-{{ u }}:`);
    lines.push(`  test.show_notification:`);
    lines.push(`    - text: "{{ u | upper }} {{ loop.index }} {{ settings.port + ${n} }} {{ defaults.app.name }}"`);
    lines.push(`{% endfor %}`);
    lines.push(`{{ svc('svc-${n}', ${8000 + n}) }}`);
    n++;
  }
  const sls = join(root, 'bench', 'init.sls');
  writeFileSync(sls, `${lines.join('\n')}\n`);
  return { root, sls };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * CPU ms of one run of `argv` and its children, read from bash's `times` (RUSAGE_CHILDREN), so
 * Salt's and brine's processes are measured the same way. Throws if the command fails.
 */
function processCpuMs(argv: string[], cwd: string): number {
  const quoted = argv.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  const res = spawnSync('bash', ['-c', `${quoted} >/dev/null 2>&1 || exit 97; times`], { cwd, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`bench: ${argv.join(' ')} failed (exit ${res.status})`);
  const children = res.stdout.trim().split('\n')[1] ?? '';
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(children);
  if (!m) throw new Error(`bench: unreadable times output: ${res.stdout}`);
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

export function cpuMedian(argv: string[], cwd: string): number {
  processCpuMs(argv, cwd);
  return median(Array.from({ length: RUNS }, () => processCpuMs(argv, cwd)));
}

export async function runRenderBench(): Promise<RenderBenchResult> {
  const { root, sls } = makeTree();
  try {
    const opts = { path: sls, sls: 'bench', saltenv: 'base', roots: [root], context: { grains: { os: 'Debian' }, pillar: {}, opts: {} } };
    await renderFile(opts);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = process.hrtime.bigint();
      await renderFile(opts);
      times.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const conf = join(root, 'conf');
    mkdirSync(conf, { recursive: true });
    writeFileSync(
      join(conf, 'minion'),
      // Block style, as Salt's documentation writes it (and as state-bench.ts does).
      `root_dir: ${join(root, 'saltroot')}\nfile_client: local\nfile_roots:\n  base:\n    - ${root}\npillar_roots:\n  base:\n    - ${join(root, 'nopillar')}\nid: bench\n`,
    );
    const args = ['-c', conf, '--local', 'state.show_sls', 'bench', '--out', 'quiet'];
    const brineCpuMs = cpuMedian([process.execPath, ...binArgv('salt-call'), ...args], root);
    const salt = join(homedir(), '.cache', 'brine-salt-ref', 'bin', 'salt-call');
    const saltCpuMs = existsSync(salt) ? cpuMedian([salt, ...args], root) : null;
    return { lines: 200, brineRenderMs: median(times), brineCpuMs, saltCpuMs, speedup: saltCpuMs === null ? null : saltCpuMs / brineCpuMs };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** One line for the report. */
export function renderBenchLine(r: RenderBenchResult): string {
  const salt =
    r.saltCpuMs === null
      ? 'Salt 3007 not installed (../shared/salt-ref/setup.sh ~/.cache/brine-salt-ref)'
      : `Salt 3007 ${r.saltCpuMs.toFixed(0)} ms CPU, brine ${r.speedup!.toFixed(1)}x faster`;
  return `salt-call --local state.show_sls of a ${r.lines}-line SLS (loops, macros, imports): brine ${r.brineCpuMs.toFixed(0)} ms CPU; ${salt} (median of ${RUNS} whole processes); brine's render alone ${r.brineRenderMs.toFixed(2)} ms in-process`;
}

if (require.main === module) {
  void runRenderBench().then((r) => process.stdout.write(`${renderBenchLine(r)}\n`));
}
