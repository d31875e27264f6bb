import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILTIN_PLUGINS, createHarness } from 'brine/testing';
import { HelloStates } from '../src/hello.state';

const root = mkdtempSync(join(tmpdir(), 'hello-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// The built-in `state` module applies it (state.single, state.apply), as on a minion.
describe('hello state module', () => {
  it('writes the greeting, changes nothing in test mode, and nothing when it is right already', async () => {
    const h = await createHarness({ modules: [...BUILTIN_PLUGINS, HelloStates], pillar: {} });
    const file = join(root, 'greeting');
    const tag = `hello_|-${file}_|-${file}_|-greeting`;
    // A state run returns its results by state tag.
    const single = async (kwargs: Record<string, unknown>) => {
      const res = await h.call('state.single', ['hello.greeting', file], kwargs);
      return { retcode: res.retcode, ret: (res.return as Record<string, unknown>)[tag] };
    };

    const dry = await single({ who: 'bob', test: true });
    expect(dry.ret).toMatchObject({ result: null, changes: { greeting: { old: null, new: 'hello bob' } } });
    expect(existsSync(file)).toBe(false);

    const first = await single({ who: 'bob' });
    expect(first.retcode).toBe(0);
    expect(first.ret).toMatchObject({ result: true, comment: `${file} greets bob` });
    expect(readFileSync(file, 'utf8')).toBe('hello bob\n');

    const again = await single({ who: 'bob' });
    expect(again.ret).toMatchObject({ result: true, changes: {}, comment: `${file} already greets bob` });
  });

  it('runs in an SLS with requisites: a watch calls mod_watch when the watched file changed, unless skips', async () => {
    const states = join(root, 'states');
    mkdirSync(states, { recursive: true });
    const file = join(root, 'site');
    const sls = (who: string): string =>
      [
        `${file}:`,
        '  hello.greeting:',
        `    - who: ${who}`,
        'announce:',
        '  hello.greeting:',
        `    - name: ${file}-announce`,
        '    - who: everyone',
        '    - watch:',
        `      - hello: ${file}`,
        'skipped:',
        '  hello.greeting:',
        `    - name: ${file}-never`,
        '    - unless: true',
        '',
      ].join('\n');
    writeFileSync(join(states, 'greet.sls'), sls('ann'));
    const h = await createHarness({
      modules: [...BUILTIN_PLUGINS, HelloStates],
      pillar: {},
      config: { file_client: 'local', file_roots: { base: [states] } },
    });
    type Ret = Record<string, { result: boolean; changes: Record<string, unknown>; comment: string }>;
    const announce = `hello_|-announce_|-${file}-announce_|-greeting`;

    // First run: both files are written; the watching state changed itself, so no mod_watch (as Salt).
    const first = await h.call('state.apply', ['greet']);
    expect(first.retcode).toBe(0);
    expect((first.return as Ret)[announce].changes).toEqual({ greeting: { old: null, new: 'hello everyone' } });
    expect((first.return as Ret)[`hello_|-skipped_|-${file}-never_|-greeting`].comment).toBe('unless condition is true');
    expect(existsSync(`${file}-never`)).toBe(false);

    // The watched greeting changes: the announce file is right already, so its mod_watch runs.
    writeFileSync(join(states, 'greet.sls'), sls('zoe'));
    const second = await h.call('state.apply', ['greet']);
    expect(second.retcode).toBe(0);
    expect((second.return as Ret)[announce]).toMatchObject({ result: true, changes: { said: 'hello everyone' } });
    expect(readFileSync(`${file}-announce.said`, 'utf8')).toBe('hello everyone\n');
  });
});
