/**
 * The rendering cases of ../shared/salt-states (40-47, 65-69): each case's SLS files rendered
 * here must give the data Salt's state run shows (the `text`/`comment` each state echoed), and
 * the render errors must carry Salt's exact text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RenderError, loadSaltYaml, renderFile, type SaltCaller } from '../../../src/core/render';

const CASES = join(__dirname, '../../../../shared/salt-states/cases');
const grains = { os: 'Debian', os_family: 'Debian', id: 'vec1' };

function traverse(data: unknown, key: string, dflt: unknown): unknown {
  let v = data;
  for (const p of key.split(':')) {
    if (v === null || typeof v !== 'object' || !(p in (v as object))) return dflt;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

function callerFor(pillar: Record<string, unknown>): SaltCaller {
  return {
    call(fun, args) {
      const [key, dflt] = args as [string, unknown];
      if (fun === 'pillar.get') return traverse(pillar, key, dflt ?? '');
      if (fun === 'grains.get') return traverse(grains, key, dflt ?? '');
      // An asynchronous function, as cmd.run is.
      if (fun === 'cmd.run') return Promise.resolve(String(key).replace(/^echo /, ''));
      throw new Error(`no function ${fun}`);
    },
  };
}

function caseJson(name: string): { local: unknown } {
  return JSON.parse(readFileSync(join(CASES, name, 'out.json'), 'utf8'));
}

async function renderSls(
  caseName: string,
  sls: string,
  pillar: Record<string, unknown> = {},
): Promise<Record<string, Record<string, unknown[]>>> {
  const root = join(CASES, caseName, 'states');
  const rel = sls.replace(/\./g, '/');
  let path = join(root, `${rel}.sls`);
  try {
    readFileSync(path);
  } catch {
    path = join(root, rel, 'init.sls');
  }
  return (await renderFile({
    path,
    sls,
    saltenv: 'base',
    roots: [root],
    context: { grains, pillar, opts: { id: 'vec1' } },
    caller: callerFor(pillar),
  })) as never;
}

/** The comment each state of a case's state run showed, by ID. */
function comments(caseName: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of Object.values(caseJson(caseName).local as Record<string, { __id__: string; comment: string }>)) out[r.__id__] = r.comment;
  return out;
}

/** The text an SLS gave each state: `text` of show_notification, `comment` of configurable_test_state. */
function echoed(data: Record<string, Record<string, unknown[]>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [id, body] of Object.entries(data)) {
    for (const args of Object.values(body)) {
      for (const arg of args as Record<string, unknown>[]) {
        if (arg && typeof arg === 'object' && ('text' in arg || 'comment' in arg)) out[id] = String(arg.text ?? arg.comment);
      }
    }
  }
  return out;
}

function pillarOf(caseName: string, file: string): Record<string, unknown> {
  return loadSaltYaml(readFileSync(join(CASES, caseName, 'pillar', file), 'utf8')) as Record<string, unknown>;
}

async function renderError(caseName: string, sls: string): Promise<RenderError> {
  try {
    await renderSls(caseName, sls);
  } catch (err) {
    if (err instanceof RenderError) return err;
    throw err;
  }
  throw new Error(`${sls} rendered without error`);
}

function saltError(caseName: string): string {
  const [first] = caseJson(caseName).local as string[];
  return first.replace(/^Rendering SLS '[^']+' failed: /, '');
}

describe('rendering corpus cases', () => {
  it('40: grains, pillar, salt[...] (async cmd.run included), context variables', async () => {
    const data = await renderSls('40-jinja-grains-pillar', 'jinja.data', pillarOf('40-jinja-grains-pillar', 'common.sls'));
    expect(echoed(data)).toEqual(comments('40-jinja-grains-pillar'));
  });

  it('41: loops, loop.index/length, macros, dict .items(), namespace()', async () => {
    const data = await renderSls('41-jinja-loops-set-macro', 'jinja_loops');
    expect(Object.keys(data)).toEqual(Object.keys(comments('41-jinja-loops-set-macro')));
    expect(echoed(data)).toEqual(comments('41-jinja-loops-set-macro'));
  });

  it('42: import_yaml/json/text, load_yaml, from-import with context, ./relative, include', async () => {
    const data = await renderSls('42-jinja-import-include', 'imp');
    expect(echoed(data)).toEqual(comments('42-jinja-import-include'));
  });

  it('44: #!yaml, #!jinja|yaml, #!jinja | yaml; #!py refused in one line', async () => {
    const all: Record<string, string> = {};
    for (const sls of ['shebang_yaml', 'shebang_jinja', 'shebang_yaml_jinja_spaces'])
      Object.assign(all, echoed(await renderSls('44-shebang-renderers', sls)));
    const expected = comments('44-shebang-renderers');
    delete expected['py-state'];
    expect(all).toEqual(expected);
    const err = await renderError('44-shebang-renderers', 'shebang_py');
    expect(err.code).toBe('UNSUPPORTED_RENDERER');
    expect(err.message).toMatch(/shebang_py\.sls: the '#!py' renderer is not supported/);
    expect(err.message).not.toContain('\n');
  });

  it('45: the data of an SLS with a loop, include and requisites, in file order', async () => {
    const data = await renderSls('45-show-sls', 'show');
    expect(Object.keys(data)).toEqual(['include', 'show-one', 'show-two', '/srv/saltvec/work/show.conf', 'show-cmd', 'multi']);
    expect(data['/srv/saltvec/work/show.conf']).toEqual({
      'file.managed': [{ contents: 'hi' }, { mode: '0644' }, { require: [{ test: 'show-one' }] }, { watch_in: [{ cmd: 'show-cmd' }] }],
    });
    expect(data['show-cmd']).toEqual({ 'cmd.run': [{ name: 'echo show' }, { cwd: '/' }, { env: [{ A: 'b' }] }] });
  });

  it.each([
    ['65-err-yaml-syntax', 'bad_yaml'],
    ['66-err-yaml-duplicate-key', 'dup_key'],
    ['67-err-jinja-undefined', 'jinja_undef'],
    ['68-jinja-undefined-plain', 'jinja_undef_plain'],
    ['69-err-jinja-syntax', 'jinja_syntax'],
  ])("%s: Salt's error text", async (caseName, sls) => {
    const err = await renderError(caseName, sls);
    expect(err.message).toBe(saltError(caseName));
  });
});
