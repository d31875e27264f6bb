import { describe, expect, it } from 'vitest';
import {
  ArgumentError,
  CommandExecutionError,
  Fn,
  FunctionNotFoundError,
  IConfig,
  IShell,
  InvocationError,
  Module,
  ModuleUnavailableError,
  PluginDefinitionError,
  inject,
} from 'brine/plugin';
import { BrineError } from '../../src/core/errors';
import { readFns, readInjectionTokens, readModule } from '../../src/plugins/api/metadata';
import { exploreModule } from '../../src/plugins/loader/explorer';
import { createHarness } from 'brine/testing';

@Module('sample', { doc: 'A sample', available: () => true })
class Sample {
  constructor(
    @inject(IShell) readonly shell: IShell,
    @inject(IConfig) readonly config: IConfig,
  ) {}

  @Fn({ summary: 'echo doc' })
  echo(text: unknown): unknown {
    return text;
  }

  @Fn({ name: 'true' })
  true_(): boolean {
    return true;
  }

  @Fn()
  _hidden(): string {
    return 'no';
  }

  @Fn()
  many(a: unknown, b: unknown = 2, ...rest: unknown[]): unknown[] {
    return [a, b, rest];
  }

  @Fn()
  opts(cmd: unknown, { cwd, env }: { cwd?: string; env?: unknown } = {}): unknown[] {
    return [cmd, cwd, env];
  }

  notAFunction(): string {
    return 'not marked';
  }
}

describe('decorators', () => {
  it('record metadata only, under global-registry keys a second copy of brine reads too', () => {
    expect(readModule(Sample)?.name).toBe('sample');
    expect(
      readFns(Sample)
        .map((f) => f.method)
        .sort(),
    ).toEqual(['_hidden', 'echo', 'many', 'opts', 'true_']);
    expect(readInjectionTokens(Sample).map((t) => t.token)).toEqual([IShell, IConfig]);
    expect(IShell).toBe(Symbol.for('brine.IShell'));
    expect(Object.getOwnPropertySymbols(Sample)).toContain(Symbol.for('brine.plugin.module'));
  });

  it('refuse a module name that is not a word', () => {
    expect(() => Module('bad name')).toThrow(TypeError);
  });
});

describe('exploreModule', () => {
  it('turns a class into descriptors without instantiating it', () => {
    const d = exploreModule(Sample);
    expect(d.name).toBe('sample');
    expect(d.doc).toBe('A sample');
    expect([...d.functions.keys()].sort()).toEqual(['echo', 'many', 'opts', 'true']);
    expect(d.functions.get('echo')).toMatchObject({
      method: 'echo',
      doc: '\n    echo doc\n    ',
      params: [{ name: 'text', kind: 'positional', optional: false }],
    });
    expect(d.functions.get('true')?.method).toBe('true_');
    expect(d.functions.get('many')?.params).toEqual([
      { name: 'a', kind: 'positional', optional: false },
      { name: 'b', kind: 'positional', optional: true, defaultText: '2' },
      { name: 'rest', kind: 'rest', optional: true },
    ]);
    expect(d.functions.get('many')?.kwargsKeys).toEqual([]);
    expect(d.functions.get('opts')?.params[1]).toEqual({ name: 'kwargs', kind: 'kwargs', optional: true });
    expect(d.functions.get('opts')?.kwargsKeys).toEqual(['cwd', 'env']);
  });

  it('rejects a class without @Module and a constructor parameter without @inject', () => {
    class Plain {}
    expect(() => exploreModule(Plain)).toThrow(PluginDefinitionError);
    @Module('noinject')
    class NoInject {
      constructor(readonly x: unknown) {}
    }
    try {
      exploreModule(NoInject);
      expect.unreachable();
    } catch (err) {
      expect((err as PluginDefinitionError).code).toBe('PLUGIN_DEFINITION');
      expect((err as Error).message).toContain('constructor parameter #1');
    }
  });
});

describe('strict container', () => {
  it('a missing service is a clear error naming the module and the service', async () => {
    const IPackages = Symbol('IPackages');
    @Module('pkgs')
    class Pkgs {
      constructor(@inject(IPackages) readonly p: unknown) {}
      @Fn()
      list(): unknown[] {
        return [];
      }
    }
    const h = await createHarness({ modules: [Pkgs] });
    expect(h.plugins.registry.moduleNames()).toEqual([]);
    const [problem] = h.plugins.registry.problems;
    expect(problem.module).toBe('pkgs');
    expect((problem.error as BrineError).code).toBe('PLUGIN_DEFINITION');
    expect(problem.error.message).toBe("Module 'pkgs' (class Pkgs) depends on unknown service IPackages (constructor parameter #1)");
  });
});

describe('errors', () => {
  it('extend BrineError with stable codes and Salt wording', () => {
    const cases: [BrineError, string][] = [
      [new CommandExecutionError('x'), 'COMMAND_EXECUTION'],
      [new InvocationError('x'), 'INVOCATION'],
      [new ArgumentError('x'), 'ARGUMENT'],
      [new ModuleUnavailableError('pkgx', 'needs Linux'), 'MODULE_UNAVAILABLE'],
      [new FunctionNotFoundError('test.nope'), 'FUNCTION_NOT_FOUND'],
      [new PluginDefinitionError('x'), 'PLUGIN_DEFINITION'],
    ];
    for (const [err, code] of cases) {
      expect(err).toBeInstanceOf(BrineError);
      expect(err.code).toBe(code);
    }
    expect(new FunctionNotFoundError('test.nope').message).toBe("'test.nope' is not available.");
    expect(new ModuleUnavailableError('pkgx', 'needs Linux').message).toBe("'pkgx' __virtual__ returned False: needs Linux");
    expect(new ModuleUnavailableError('pkgx').message).toBe("'pkgx' __virtual__ returned False");
  });
});
