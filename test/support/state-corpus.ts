/**
 * Runs the cases of `../shared/salt-states/` (captured from a real Salt 3007.10) against brine's
 * real `salt-call --local`, each variant in a fresh temporary tree, as the corpus README says
 * they were made: `/srv/saltvec` is rewritten to the temporary root in inputs and expected outputs,
 * and only the fields the README names as varying are normalised.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { HOST_DEPENDENT } from './state-corpus-host';

export const CORPUS = resolve(__dirname, '../../../shared/salt-states/cases');
const REPO = resolve(__dirname, '../..');
const SALTVEC = '/srv/saltvec';

/** One output variant: `out.X` plus, when stored, the idempotence run `out2.X`. */
export interface Variant {
  name: string;
  files: { file: string; args: string[] }[];
}

export interface CaseSpec {
  name: string;
  dir: string;
  variants: Variant[];
  retcodes: Map<string, number>;
}

/** Salt-call arguments as a POSIX shell would split them (the corpus quotes with ' and "). */
export function shellSplit(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      cur += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; line[j] !== '"'; j++) {
        if (line[j] === '\\' && '"\\$`'.includes(line[j + 1])) j++;
        cur += line[j];
      }
      i = j;
      inWord = true;
    } else if (c === '\\') {
      cur += line[++i];
      inWord = true;
    } else if (c === ' ' || c === '\t') {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) out.push(cur);
  return out;
}

export function loadCase(name: string): CaseSpec {
  const dir = join(CORPUS, name);
  const groups = new Map<string, Variant>();
  for (const line of readFileSync(join(dir, 'commands.txt'), 'utf8').split('\n')) {
    const m = /^(out2?)(\..+?): (.*)$/.exec(line);
    if (!m) continue;
    const key = m[2];
    const args = shellSplit(m[3].replace(/\s+\(work\/ NOT reset\)$/, ''));
    const v = groups.get(key) ?? { name: key.replace(/^\./, '').replace(/\.(txt|json)$/, ''), files: [] };
    v.files.push({ file: `${m[1]}${m[2]}`, args });
    groups.set(key, v);
  }
  for (const v of groups.values()) v.files.sort((a, b) => (a.file.startsWith('out2') ? 1 : 0) - (b.file.startsWith('out2') ? 1 : 0));
  const retcodes = new Map<string, number>();
  const rcFile = join(dir, 'retcodes.txt');
  if (existsSync(rcFile)) {
    for (const line of readFileSync(rcFile, 'utf8').split('\n')) {
      const [file, rc] = line.trim().split(/\s+/);
      if (file && rc !== undefined) retcodes.set(file, Number(rc));
    }
  }
  return { name, dir, variants: [...groups.values()], retcodes };
}

export function caseNames(): string[] {
  return readdirSync(CORPUS)
    .filter((n) => /^\d\d-/.test(n))
    .sort();
}

/** The fields the corpus README names as varying from run to run, in every output format. */
export function normalise(text: string): string {
  return text
    .replace(/(Started: )\d\d:\d\d:\d\d\.\d+/g, '$1<time>')
    .replace(/(Duration: )[\d.]+ ms/g, '$1<ms>')
    .replace(/^Total run time: .*$/gm, 'Total run time: <total>')
    .replace(/("start_time": )"[\d:.]+"/g, '$1"<time>"')
    .replace(/("duration": )[\d.e-]+/g, '$1<ms>')
    .replace(/("pid": )\d+/g, '$1<pid>')
    .replace(/('start_time': )'[\d:.]+'/g, "$1'<time>'")
    .replace(/('duration': )[\d.e-]+/g, '$1<ms>')
    .replace(/('pid': )\d+/g, '$1<pid>')
    .replace(/^(\s*start_time: )'[\d:.]+'$/gm, "$1'<time>'")
    .replace(/^(\s*duration: )[\d.e-]+$/gm, '$1<ms>')
    .replace(/^(\s*pid: )\d+$/gm, '$1<pid>')
    .replace(/^(\s*(?:pid|duration|start_time):\n\s+)[\d:.]+$/gm, '$1<n>');
}

export interface RunOutput {
  stdout: string;
  stderr: string;
  code: number;
}

function runSaltCall(args: string[], env: NodeJS.ProcessEnv): Promise<RunOutput> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/salt-call'), ...args], { cwd: '/', env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolveRun({ stdout, stderr, code: code ?? -1 }));
  });
}

/** `stat`-style listing and contents of the work tree, as the corpus's work-after.txt. */
export function workListing(work: string): string {
  const entries: string[] = [];
  const walk = (rel: string): void => {
    for (const name of readdirSync(join(work, rel)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      entries.push(r);
      if (lstatSync(join(work, r)).isDirectory()) walk(r);
    }
  };
  if (!existsSync(work)) return '';
  walk('');
  // find | sort: byte order of './path'
  entries.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lines: string[] = [];
  const files: string[] = [];
  for (const r of entries) {
    const st = lstatSync(join(work, r));
    const kind = st.isDirectory() ? 'd' : st.isSymbolicLink() ? 'l' : '-';
    const perm = modeString(st.mode & 0o777);
    const size = st.isSymbolicLink() ? Buffer.byteLength(readlinkSync(join(work, r))) : st.size;
    const link = st.isSymbolicLink() ? ` -> '${readlinkSync(join(work, r))}'` : '';
    lines.push(`${kind}${perm} root:root ${size} './${r}'${link}`);
    if (st.isFile()) files.push(r);
  }
  let out = lines.join('\n') + (lines.length ? '\n' : '');
  for (const f of files) out += `=== ./${f}\n${readFileSync(join(work, f), 'utf8')}`;
  return out;
}

function modeString(mode: number): string {
  const bits = 'rwxrwxrwx';
  return [...bits].map((c, i) => (mode & (1 << (8 - i)) ? c : '-')).join('');
}

export interface VariantResult {
  file: string;
  expected: string;
  actual: string;
  expectedCode?: number;
  code: number;
  stderr: string;
}

/** Runs one variant in a fresh tree; returns each stored file's expected and actual text. */
export async function runVariant(
  spec: CaseSpec,
  variant: Variant,
): Promise<{ results: VariantResult[]; workAfter?: { expected: string; actual: string } }> {
  // Same length as /srv/saltvec, so sizes of symlinks and any column widths stay as stored.
  const root = mkdtempSync('/tmp/b');
  const vec = root;
  const swap = (s: string): string => s.split(SALTVEC).join(vec);
  try {
    for (const d of ['conf', 'states', 'pillar', 'work', 'root']) mkdirSync(join(vec, d), { recursive: true });
    for (const d of ['states', 'pillar']) {
      if (existsSync(join(spec.dir, d))) copyRewritten(join(spec.dir, d), join(vec, d), swap);
    }
    let conf = `root_dir: ${vec}/root\nfile_client: local\nfile_roots:\n  base:\n    - ${vec}/states\npillar_roots:\n  base:\n    - ${vec}/pillar\nid: vec1\nuser: root\n`;
    if (existsSync(join(spec.dir, 'minion.extra'))) conf += swap(readFileSync(join(spec.dir, 'minion.extra'), 'utf8'));
    writeFileSync(join(vec, 'conf/minion'), conf);
    if (existsSync(join(spec.dir, 'setup.sh'))) {
      await new Promise<void>((ok, bad) => {
        const c = spawn('bash', [join(spec.dir, 'setup.sh')], { cwd: vec, stdio: 'ignore' });
        c.on('close', (code) => (code === 0 ? ok() : bad(new Error(`setup.sh exited ${code}`))));
      });
    }
    // A case that depends on the capture host gets only those host values adapted (state-corpus-host.ts).
    const host = HOST_DEPENDENT[spec.name] ?? {};
    const env = {
      PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
      LC_ALL: 'C.UTF-8',
      ...(host.env?.(root) ?? {}),
    };
    const results: VariantResult[] = [];
    for (const { file, args } of variant.files) {
      const argv = args.map(swap);
      // A host state that changed during the run (another test installing a package) means run again.
      let out: RunOutput;
      let state: string | undefined;
      for (let attempt = 1; ; attempt++) {
        const before = host.fingerprint?.();
        out = await runSaltCall(['-c', join(vec, 'conf'), ...argv], env);
        state = host.fingerprint?.();
        if (before === state || attempt === 5) break;
      }
      const stored = swap(readFileSync(join(spec.dir, file), 'utf8'));
      results.push({
        file,
        // Against the host state the run saw, not a later one (another test may change it again).
        expected: normalise(host.expected ? host.expected(file, stored, state) : stored),
        actual: normalise(host.actual ? host.actual(file, out.stdout, stored) : out.stdout),
        expectedCode: spec.retcodes.get(file),
        code: out.code,
        stderr: out.stderr,
      });
    }
    let workAfter;
    if (variant.name === 'json' && existsSync(join(spec.dir, 'work-after.txt'))) {
      workAfter = { expected: swap(readFileSync(join(spec.dir, 'work-after.txt'), 'utf8')), actual: workListing(join(vec, 'work')) };
    }
    return { results, workAfter };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function copyRewritten(from: string, to: string, swap: (s: string) => string): void {
  cpSync(from, to, { recursive: true });
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const text = readFileSync(p, 'utf8');
        if (text.includes(SALTVEC)) writeFileSync(p, swap(text));
      }
    }
  };
  walk(to);
}
