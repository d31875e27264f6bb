/**
 * Rendering a 200-line SLS with loops, macros and imports: brine's renderFile against the
 * reference Salt 3007 (`salt-call --local slsutil.renderer`, whole process) when it is installed
 * under $HOME/.cache/brine-salt-ref (../shared/salt-ref/setup.sh DEST installs it). brine is
 * measured twice: in-process (the render alone, median of 20 after a warm-up) and as a whole
 * process (node loading the renderer and rendering once), which is what Salt's number is.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderFile } from '../src/core/render';

export interface RenderBenchResult {
  lines: number;
  brineRenderMs: number;
  brineProcessMs: number;
  saltProcessMs: number | null;
}

export function makeTree(): { root: string; sls: string } {
  const root = mkdtempSync(join(tmpdir(), 'brine-render-bench-'));
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(join(root, 'bench', 'map.jinja'), "{% set settings = {'port': 8080, 'users': ['alice', 'bob', 'carol']} %}\n{% macro line(k, v) %}{{ k }}={{ v }}{% endmacro %}\n");
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

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
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
    // A whole process: what `salt-call --local slsutil.renderer` is measured as.
    const script = `require(${JSON.stringify(join(__dirname, '..', 'src', 'core', 'render'))}).renderFile(${JSON.stringify(opts)}).then(() => process.exit(0))`;
    const t0 = process.hrtime.bigint();
    execFileSync(process.execPath, ['-e', script], { stdio: 'ignore' });
    const brineProcessMs = Number(process.hrtime.bigint() - t0) / 1e6;

    let saltProcessMs: number | null = null;
    const salt = join(homedir(), '.cache', 'brine-salt-ref', 'bin', 'salt-call');
    if (existsSync(salt)) {
      const conf = join(root, 'conf');
      mkdirSync(conf, { recursive: true });
      writeFileSync(join(conf, 'minion'), `root_dir: ${join(root, 'saltroot')}\nfile_client: local\nfile_roots: {base: [${root}]}\npillar_roots: {base: [${join(root, 'nopillar')}]}\nid: bench\n`);
      const t1 = process.hrtime.bigint();
      const res = spawnSync(salt, ['-c', conf, '--local', 'slsutil.renderer', 'salt://bench/init.sls', '--out', 'quiet'], { stdio: 'ignore' });
      if (res.status === 0) saltProcessMs = Number(process.hrtime.bigint() - t1) / 1e6;
    }
    return { lines: 200, brineRenderMs: median(times), brineProcessMs, saltProcessMs };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void runRenderBench().then((r) => {
    process.stdout.write(
      `render of a 200-line SLS (loops, macros, imports): brine ${r.brineRenderMs.toFixed(2)} ms in-process, ${r.brineProcessMs.toFixed(0)} ms as a process; ` +
        `Salt 3007 salt-call --local slsutil.renderer ${r.saltProcessMs === null ? 'not installed' : `${r.saltProcessMs.toFixed(0)} ms`}\n`,
    );
  });
}
