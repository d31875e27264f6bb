/**
 * brine's `service` states answer as Salt 3007.10's salt/states/service.py answers: 428 cases
 * (running, dead, enabled, disabled, masked, unmasked, mod_watch; test mode; enable True/False/
 * strings; unavailable services; backends that fail or raise; systemd-only arguments on a host without
 * systemd) whose results, comments, changes and warnings were produced by the real Salt code
 * (fixtures/service-states/salt-cases.py) over a backend whose state each case sets. The same
 * backend here is an in-memory `service` module of this test, so that only the states' logic is
 * compared; the real backends are exercised in service-sysvinit.test.ts and service-module.test.ts.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CommandExecutionError, Fn, Module, arg } from 'brine/plugin';
import { createHarness, type Harness } from 'brine/testing';
import { BUILTIN_PLUGINS, DebianServiceModule, OpenrcServiceModule, RhServiceModule, ServiceModule } from '../../../plugins';
import { fixture } from '../fixtures';

interface Case {
  fun: string;
  name: string;
  kwargs: Record<string, unknown>;
  test: boolean;
  before: { running: boolean; enabled: boolean; fails: boolean; masked: boolean; with_mask: boolean; raises: boolean };
  ret: Record<string, unknown>;
  calls: string[];
  after: { running: boolean; enabled: boolean; masked: boolean };
}

const CASES = JSON.parse(readFileSync(fixture('service-states/salt-cases.json'), 'utf8')) as Case[];
const backend = { running: false, enabled: false, fails: false, raises: false, masked: false, calls: [] as string[] };

const NAME = { name: arg.string() };
const ACT = {
  name: arg.string(),
  no_block: arg.boolean({ default: false }),
  unmask: arg.boolean({ default: false }),
  unmask_runtime: arg.boolean({ default: false }),
};

function act(fn: string, to: boolean | null): boolean {
  if (backend.raises && fn !== 'stop') throw new CommandExecutionError(`${fn} refused`);
  if (backend.fails) return false;
  if (to !== null) backend.running = to;
  backend.calls.push(fn);
  return true;
}

@Module('service')
class MemoryService {
  @Fn({ args: { name: arg.string(), sig: arg.string({ optional: true }) } })
  status(): boolean {
    return backend.running;
  }
  @Fn({ args: ACT })
  start(): boolean {
    return act('start', true);
  }
  @Fn({ args: ACT })
  stop(): boolean {
    return act('stop', false);
  }
  @Fn({ args: ACT })
  restart(): boolean {
    return act('restart', true);
  }
  @Fn({ args: ACT })
  reload(): boolean {
    return act('reload', null);
  }
  @Fn({ args: ACT })
  force_reload(): boolean {
    return act('force_reload', null);
  }
  @Fn({ args: NAME, kwargs: true })
  enable(): boolean {
    if (backend.raises) throw new CommandExecutionError('enable refused');
    if (backend.fails) return false;
    backend.enabled = true;
    return true;
  }
  @Fn({ args: NAME, kwargs: true })
  disable(): boolean {
    if (backend.fails) return false;
    backend.enabled = false;
    return true;
  }
  @Fn({ args: NAME, kwargs: true })
  enabled(): boolean {
    return backend.enabled;
  }
  @Fn({ args: NAME })
  disabled(): boolean {
    return !backend.enabled;
  }
  @Fn({ args: NAME })
  available({ name }: { name: string }): boolean {
    return name === 'web';
  }
}

const MASK = { name: arg.string(), runtime: arg.boolean({ default: false }) };

@Module('service')
class MemoryMaskingService extends MemoryService {
  @Fn({ args: MASK })
  masked(): boolean {
    return backend.masked;
  }
  @Fn({ args: MASK })
  mask(): void {
    backend.masked = true;
  }
  @Fn({ args: MASK })
  unmask(): void {
    backend.masked = false;
  }
}

const BACKENDS = new Set<unknown>([ServiceModule, DebianServiceModule, OpenrcServiceModule, RhServiceModule]);
const harness = (service: unknown): Promise<Harness> =>
  createHarness({
    modules: [...BUILTIN_PLUGINS.filter((p) => !BACKENDS.has(p)), service],
    grains: { kernel: 'Linux', os: 'Debian', os_family: 'Debian', init: 'unknown' },
    pillar: {},
  });

describe("service states against Salt 3007.10's answers", () => {
  it(`answers all ${CASES.length} cases as Salt does (result, comment, changes, warnings, backend calls)`, async () => {
    const plain = await harness(MemoryService);
    const masking = await harness(MemoryMaskingService);
    const mismatches: unknown[] = [];
    for (const c of CASES) {
      const { running, enabled, fails, raises, masked } = c.before;
      Object.assign(backend, { running, enabled, fails, raises, masked, calls: [] });
      const h = c.before.with_mask ? masking : plain;
      const res = await h.call('state.single', [`service.${c.fun}`, c.name], { ...c.kwargs, ...(c.test ? { test: true } : {}) });
      const ret = Object.values(res.return as Record<string, Record<string, unknown>>)[0] ?? {};
      const got = {
        ret: Object.fromEntries(['name', 'changes', 'result', 'comment', 'warnings'].filter((k) => k in ret).map((k) => [k, ret[k]])),
        calls: backend.calls,
        after: { running: backend.running, enabled: backend.enabled, masked: backend.masked },
      };
      const want = { ret: c.ret, calls: c.calls, after: c.after };
      if (JSON.stringify(got) !== JSON.stringify(want))
        mismatches.push({ case: { fun: c.fun, kwargs: c.kwargs, test: c.test, before: c.before }, got, want });
    }
    expect(mismatches.slice(0, 3)).toEqual([]);
  });

  it('the key order of a result is Salt’s (name, changes, result, comment)', async () => {
    const h = await harness(MemoryService);
    Object.assign(backend, { running: false, enabled: false, fails: false, raises: false, calls: [] });
    const res = await h.call('state.single', ['service.running', 'web']);
    const ret = Object.values(res.return as Record<string, Record<string, unknown>>)[0];
    expect(Object.keys(ret).slice(0, 4)).toEqual(['name', 'changes', 'result', 'comment']);
  });
});
