import { describe, expect, it } from 'vitest';
import {
  ExtPillar,
  Fn,
  Module,
  Pillar,
  Render,
  Renderer,
  Returner,
  Runner,
  State,
  StateModule,
  Wheel,
  arg,
  inject,
  ISalt,
  type PillarContext,
  type RendererContext,
  type StateContext,
  type StateReturn,
} from 'brine/plugin';
import { createHarness } from 'brine/testing';
import { exploreModule } from '../../../src/plugins/loader/explorer';
import { extPillarArgs } from '../../../src/plugins/loader/binder';
import { fixture } from '../fixtures';
import { StateExecModule, TestModule } from '../../../plugins';

let constructed = 0;

@StateModule('motd')
class MotdState {
  constructor() {
    constructed++;
  }
  @State({ summary: 'Make the motd say text', args: { name: arg.string(), text: arg.string({ default: 'hi' }) } })
  present({ name, text }: { name: string; text: string }, ctx: StateContext): StateReturn {
    if (ctx.test) return { name, result: null, changes: { text }, comment: `would write ${text}` };
    return { name, result: true, changes: { text }, comment: 'written' };
  }
  @State({ modWatch: true, args: { name: arg.string(), sfun: arg.string({ optional: true }) }, kwargs: true })
  watched({ name, sfun }: { name: string; sfun?: string }): StateReturn {
    return { name, result: true, changes: { restarted: sfun ?? null }, comment: '' };
  }
}

@Renderer('upper')
class UpperRenderer {
  @Render({ summary: 'Upper-case the text' })
  render(input: unknown, ctx: RendererContext): string {
    return `${String(input).toUpperCase()} (${ctx.sls})`;
  }
}

@ExtPillar('roles')
class RolesPillar {
  @Pillar({ args: { roles: arg.dict() } })
  pillar({ roles }: { roles: Record<string, unknown> }, ctx: PillarContext): Record<string, unknown> {
    return { role: roles[ctx.minionId] ?? 'none' };
  }
}

@Runner('inventory')
class InventoryRunner {
  @Fn({ summary: 'Count', args: { n: arg.integer() } })
  count({ n }: { n: number }): number {
    return n + 1;
  }
}

@Wheel('notes')
class NotesWheel {
  @Fn({ summary: 'List notes' })
  list(): string[] {
    return ['a'];
  }
}

@Returner('memory')
class MemoryReturner {
  @Fn({ summary: 'Keep one return', args: { ret: arg.dict() } })
  returner({ ret }: { ret: Record<string, unknown> }): unknown {
    return ret.jid;
  }
}

const ALL = [MotdState, UpperRenderer, RolesPillar, InventoryRunner, NotesWheel, MemoryReturner];
const JOB = { fun: 'state.apply', jid: '20240101000000000001' };

describe('plugin kinds', () => {
  it('are listed by kind without running plugin code', async () => {
    const h = await createHarness({ modules: ALL });
    const { registry } = h.plugins;
    expect(registry.moduleNames('state')).toEqual(['motd']);
    expect(registry.functionNames('state')).toEqual(['motd.mod_watch', 'motd.present']);
    expect(registry.functionNames('renderer')).toEqual(['upper.render']);
    expect(registry.functionNames('ext_pillar')).toEqual(['roles.ext_pillar']);
    expect(registry.functionNames('runner')).toEqual(['inventory.count']);
    expect(registry.functionNames('wheel')).toEqual(['notes.list']);
    expect(registry.functionNames('returner')).toEqual(['memory.returner']);
    // other kinds are not execution modules
    expect(registry.moduleNames()).not.toContain('motd');
    expect((await h.call('motd.present', ['x'])).return).toBe("'motd.present' is not available.");
    expect(registry.find('motd.present', 'state')?.fn.doc).toBe('\n    Make the motd say text\n    ');
    expect(constructed).toBe(0);
  });

  it('runs each kind through the executor with its contract', async () => {
    const h = await createHarness({ modules: ALL });
    const ex = h.runtime;
    const present = (test: boolean) => ex.invoke('state', 'motd.present', { arg: ['/etc/motd', 'text=yo'], extra: [{ test }] }, JOB);
    expect(await present(true)).toEqual({ name: '/etc/motd', result: null, changes: { text: 'yo' }, comment: 'would write yo' });
    expect(await present(false)).toMatchObject({ result: true, comment: 'written' });
    expect(
      await ex.invoke(
        'state',
        'motd.mod_watch',
        { arg: ['nginx', { __kwarg__: true, sfun: 'running', reload: true }], extra: [{ test: false }] },
        JOB,
      ),
    ).toMatchObject({
      changes: { restarted: 'running' },
    });
    const renderCtx: RendererContext = { name: 'a.sls', sls: 'a', saltenv: 'base', context: {}, argline: '' };
    expect(await ex.invoke('renderer', 'upper.render', { extra: ['text', renderCtx] }, JOB)).toBe('TEXT (a)');
    const pillarCtx: PillarContext = { minionId: 'web1', grains: {}, pillar: {}, opts: {} };
    expect(
      await ex.invoke('ext_pillar', 'roles.ext_pillar', { arg: extPillarArgs({ roles: { web1: 'web' } }), extra: [pillarCtx] }, JOB),
    ).toEqual({ role: 'web' });
    expect(await ex.invoke('runner', 'inventory.count', { arg: ['41'] }, JOB)).toBe(42);
    await expect(ex.invoke('runner', 'inventory.nope', {}, JOB)).rejects.toMatchObject({ code: 'FUNCTION_NOT_FOUND' });
  });

  it('refuses a method decorator that does not fit the kind', () => {
    @StateModule('mixed')
    class Mixed {
      @Fn({ summary: 'wrong' })
      present(): boolean {
        return true;
      }
    }
    expect(() => exploreModule(Mixed)).toThrow(/@Fn marks a method of a state module, which takes @State/);
    @Renderer('empty')
    class Empty {}
    expect(() => exploreModule(Empty)).toThrow(/renderer 'empty' \(class Empty\) has no @Render method/);
  });
});

@StateModule('greeting')
class GreetingState {
  constructor(@inject(ISalt) private readonly salt: ISalt) {}
  @State({ summary: 'Echo through an execution function', args: { name: arg.string(), times: arg.integer({ default: 1 }) } })
  async said({ name, times }: { name: string; times: number }): Promise<StateReturn> {
    const echoed = await this.salt.call('test.echo', [name.repeat(times)]);
    return { name, result: true, changes: { echoed }, comment: 'said' };
  }
}

describe('a third-party state module', () => {
  it('runs through state.single as the built-ins do: bound, coerced, injected, extra keywords dropped', async () => {
    const h = await createHarness({ modules: [GreetingState, StateExecModule, TestModule], pillar: {} });
    const res = await h.call('state.single', ['greeting.said', 'hi'], { times: '2', unknown_option: 1 });
    expect(res.retcode).toBe(0);
    expect(Object.values(res.return as Record<string, StateReturn>)[0]).toMatchObject({
      name: 'hi',
      result: true,
      changes: { echoed: 'hihi' },
      comment: 'said',
    });
    const bad = await h.call('state.single', ['greeting.said', 'hi'], { times: 'x' });
    expect(bad.retcode).toBe(2);
    expect(Object.values(bad.return as Record<string, StateReturn>)[0].comment).toMatch(/times must be an integer, got 'x'/);
    const missing = await h.call('state.single', ['greeting.nope', 'hi']);
    expect(missing.retcode).not.toBe(0);
    expect(missing.return).toEqual(["Specified state 'greeting.nope' was not found"]);
  });

  it('built-in state modules are @StateModule plugins loaded from BUILTIN_PLUGINS', async () => {
    const h = await createHarness({ pillar: {} });
    expect(h.plugins.registry.moduleNames('state')).toEqual(expect.arrayContaining(['cmd', 'file', 'test']));
    expect(
      h.plugins.registry
        .find('file.symlink', 'state')
        ?.fn.params.filter((p) => !p.optional)
        .map((p) => p.name),
    ).toEqual(['name', 'target']);
    const res = await h.call('state.single', ['test.succeed_with_comment', 'x'], { comment: 'fine', extra: 'dropped' });
    expect(Object.values(res.return as Record<string, StateReturn>)[0]).toMatchObject({ result: true, comment: 'fine' });
  });
});

describe('a function whose module failed to load', () => {
  it('says why, as sys.missing_modules does', async () => {
    const h = await createHarness({ moduleDirs: [fixture('broken_dir')] });
    const missing = (await h.call('sys.missing_modules')).return as Record<string, string>;
    const res = await h.call('a-broken.run');
    expect(res.retcode).toBe(1);
    expect(res.return).toBe(`'a-broken.run' is not available. Possible reasons: '${missing['a-broken']}'`);
  });
});
