import { createHash, randomInt } from 'node:crypto';
import {
  SALT_VERSION,
  versionsReport,
  Fn,
  IConfig,
  IJobContext,
  IModules,
  ISalt,
  InvocationError,
  Module,
  arg,
  inject,
  pyRepr,
  pyTupleRepr,
  pyTypeName,
} from 'brine/plugin';

/** `str(type(v))` in Python 3: `<class 'int'>`. */
function pyClass(v: unknown): string {
  return `<class '${pyTypeName(v)}'>`;
}

/** Sleep that ends early (returning false) when the job is aborted. */
function sleep(seconds: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, seconds * 1000);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** An error that reads like Python's bare `Exception` in the job's traceback. */
class TestException extends Error {
  override name = 'Exception';
}

@Module('test', { doc: 'Module for running arbitrary tests' })
export class TestModule {
  constructor(
    @inject(IJobContext) private readonly job: IJobContext,
    @inject(ISalt) private readonly salt: ISalt,
    @inject(IConfig) private readonly config: IConfig,
    @inject(IModules) private readonly modules: IModules,
  ) {}

  @Fn({
    summary: 'Return the name of the file (without extension) that provides a module',
    description: "A module_dirs file's name, an npm package's name, or the module's own name for a built-in.",
    examples: ["salt '*' test.provider cmd"],
    args: { module: arg.string() },
  })
  provider({ module }: { module: string }): string {
    return providerName(module, this.modules.origin(module));
  }

  @Fn({
    args: {},
    summary: 'Return {provider: module} for every loaded module, keyed by provider as Salt keys it',
    examples: ["salt '*' test.providers"],
  })
  providers(): Record<string, string> {
    const ret: Record<string, string> = {};
    for (const mod of this.modules.moduleNames()) ret[providerName(mod, this.modules.origin(mod))] = mod;
    return ret;
  }

  @Fn({ args: {}, summary: 'List the module_dirs files that provide no loaded module', examples: ["salt '*' test.not_loaded"] })
  not_loaded(): string[] {
    const providers = new Set(Object.keys(this.providers()));
    const ret = new Set<string>();
    for (const file of this.modules.files()) {
      const base = file.split('/').pop() ?? file;
      if (base.startsWith('_')) continue;
      const name = base.split('.')[0];
      if (!providers.has(name)) ret.add(name);
    }
    return [...ret].sort();
  }

  @Fn({
    args: {},
    summary: "Return the option test.foo of the minion configuration, 'unconfigured' when it is not set",
    examples: ["salt '*' test.conf_test"],
  })
  conf_test(): unknown {
    return this.config.get('test.foo', 'unconfigured');
  }

  @Fn({
    args: {},
    summary: 'Report how functions and modules line up in the loader',
    description: "Every function, every module, each module's functions, and anything registered on one side only.",
    examples: ["salt '*' test.module_report"],
  })
  module_report(): Record<string, string[]> {
    const functions = this.modules.functionNames();
    const modules = this.modules.moduleNames();
    const subs = modules.flatMap((m) => functions.filter((f) => f.startsWith(`${m}.`)));
    return {
      functions,
      function_attrs: [],
      function_subs: subs,
      modules,
      module_attrs: modules,
      missing_attrs: functions.filter((f) => !subs.includes(f)),
      missing_subs: subs.filter((f) => !functions.includes(f)),
    };
  }

  @Fn({
    args: {},
    summary: 'Used to make sure the minion is up and responding. Not an ICMP ping.',
    description: 'Returns ``True``.',
    examples: ["salt '*' test.ping"],
  })
  ping(): boolean {
    return true;
  }

  @Fn({
    summary: 'Return a string - used for testing the connection',
    examples: ["salt '*' test.echo 'foo bar baz quo qux'"],
    args: { text: arg.any() },
  })
  echo({ text }: { text: unknown }): unknown {
    return text;
  }

  @Fn({
    args: {},
    summary: "Return the version of Salt this minion reproduces (brine's own is the brineversion grain)",
    examples: ["salt '*' test.version"],
  })
  version(): string {
    return SALT_VERSION;
  }

  @Fn({ args: {}, summary: 'Returns versions of components used by brine', examples: ["salt '*' test.versions_report"] })
  versions_report(): string {
    return versionsReport();
  }

  @Fn({ args: {}, summary: 'Alias of test.versions_report', examples: ["salt '*' test.versions"] })
  versions(): string {
    return versionsReport();
  }

  @Fn({
    summary: 'Sleep for the given number of seconds, then return True',
    examples: ["salt '*' test.sleep 20"],
    args: { length: arg.integer() },
  })
  async sleep({ length }: { length: number }): Promise<boolean> {
    return sleep(length, this.job.signal);
  }

  @Fn({
    summary: 'Sleep for a random number of seconds up to max',
    examples: ["salt '*' test.rand_sleep 60"],
    args: { max: arg.integer({ default: 60, min: 0 }) },
  })
  async rand_sleep({ max }: { max: number }): Promise<boolean> {
    return sleep(randomInt(0, max + 1), this.job.signal);
  }

  @Fn({
    summary: 'Return {args, kwargs} as the function received them, publication data included',
    examples: ['salt \'*\' test.arg 1 "two" 3.1 txt="hello"'],
    args: {},
    varargs: true,
    kwargs: true,
  })
  arg({ args, kwargs }: { args: unknown[]; kwargs: Record<string, unknown> }): { args: unknown[]; kwargs: Record<string, unknown> } {
    return { args, kwargs };
  }

  @Fn({
    summary: 'Return the keyword arguments, publication data included',
    examples: ['salt \'*\' test.kwarg num=1 txt="two"'],
    args: {},
    kwargs: true,
  })
  kwarg({ kwargs }: { kwargs: Record<string, unknown> }): Record<string, unknown> {
    return kwargs;
  }

  @Fn({
    summary: 'Return the Python types of the args and kwargs',
    examples: ["salt '*' test.arg_type 1 'int'"],
    args: {},
    varargs: true,
    kwargs: true,
  })
  arg_type({ args, kwargs }: { args: unknown[]; kwargs: Record<string, unknown> }): {
    args: string[];
    kwargs: Record<string, string>;
  } {
    return {
      args: args.map(pyClass),
      kwargs: Object.fromEntries(Object.entries(kwargs).map(([k, v]) => [k, pyClass(v)])),
    };
  }

  @Fn({
    summary: 'Return the Python repr of the args and kwargs',
    examples: ['salt \'*\' test.arg_repr 1 "two" 3.1 txt="hello"'],
    args: {},
    varargs: true,
    kwargs: true,
  })
  arg_repr({ args, kwargs }: { args: unknown[]; kwargs: Record<string, unknown> }): { args: string; kwargs: string } {
    return { args: pyTupleRepr(args), kwargs: pyRepr(kwargs) };
  }

  @Fn({
    summary: 'Return the num-th Fibonacci number and the seconds it took',
    examples: ["salt '*' test.fib 3"],
    args: { num: arg.integer() },
  })
  fib({ num: n }: { num: number }): [number, number] {
    if (n < 0) throw new InvocationError('Negative number is not allowed!');
    const start = performance.now();
    let prev = 0;
    let curr = 1;
    if (n < 2) return [n, (performance.now() - start) / 1000];
    for (let i = 1; i < n; i++) [prev, curr] = [curr, prev + curr];
    return [curr, (performance.now() - start) / 1000];
  }

  @Fn({
    summary: 'Return the Collatz sequence from start and the seconds it took',
    examples: ["salt '*' test.collatz 3"],
    args: { start: arg.integer() },
  })
  collatz({ start }: { start: number }): [number[], number] {
    let n = start;
    if (n < 1) throw new InvocationError('start must be a positive integer');
    const begin = performance.now();
    const steps: number[] = [];
    while (n !== 1) {
      steps.push(n);
      n = n % 2 === 0 ? n / 2 : n * 3 + 1;
    }
    return [steps, (performance.now() - begin) / 1000];
  }

  @Fn({
    summary: 'Return the data passed in, to test the outputter',
    examples: ["salt '*' test.outputter foobar"],
    args: { data: arg.any() },
  })
  outputter({ data }: { data: unknown }): unknown {
    return data;
  }

  @Fn({
    summary: "Set the job's return code and return True",
    examples: ["salt '*' test.retcode 42"],
    args: { code: arg.integer({ default: 42 }) },
  })
  retcode({ code }: { code: number }): boolean {
    this.job.retcode = code;
    return true;
  }

  @Fn({
    summary: 'Raise an exception with the given message',
    examples: ["salt '*' test.exception 'Oh noes!'"],
    args: { message: arg.string({ default: 'Test Exception' }) },
  })
  exception({ message }: { message: string }): never {
    throw new TestException(message);
  }

  @Fn({ args: {}, name: 'true', summary: 'Always return True', examples: ["salt '*' test.true"] })
  true_(): boolean {
    return true;
  }

  @Fn({ args: {}, name: 'false', summary: 'Always return False', examples: ["salt '*' test.false"] })
  false_(): boolean {
    return false;
  }

  @Fn({
    summary: 'Hash a random number between 1 and size',
    description: "hash_type defaults to the minion config's hash_type (sha256 when unset).",
    examples: ["salt '*' test.random_hash", "salt '*' test.random_hash hash_type=sha512"],
    args: { size: arg.integer({ default: 9999999999, min: 1 }), hash_type: arg.string({ optional: true }) },
  })
  random_hash({ size: max, hash_type }: { size: number; hash_type?: string }): string {
    const algo = hash_type ?? String(this.config.get('hash_type', 'sha256'));
    const value = Math.floor(Math.random() * max) + 1;
    try {
      return createHash(algo).update(String(value)).digest('hex');
    } catch {
      throw new InvocationError(`Invalid hash type: ${algo}`);
    }
  }

  @Fn({
    summary: 'Call another module function through the loader',
    examples: ["salt '*' test.cross_test test.echo '[hi]'"],
    args: { func: arg.string({ nonEmpty: true }), args: arg.any({ optional: true }) },
  })
  async cross_test({ func, args }: { func: string; args?: unknown }): Promise<unknown> {
    const list = args === null || args === undefined ? [] : Array.isArray(args) ? args : [args];
    return this.salt.call(func, list);
  }

  @Fn({ args: {}, summary: "Return the minion's configuration options", examples: ["salt '*' test.get_opts"] })
  get_opts(): Record<string, unknown> {
    return this.config.all();
  }

  @Fn({ args: {}, summary: 'Return the current stack trace', examples: ["salt '*' test.stack"] })
  stack(): string {
    return new Error('stack').stack ?? '';
  }
}

/** Salt names a provider by its file without extension; brine's built-ins by the module name. */
function providerName(module: string, origin: string | undefined): string {
  if (origin === undefined) return '';
  if (origin === 'builtin') return module;
  if (origin.startsWith('npm:')) return origin.slice(4);
  const base = origin.split('/').pop() ?? origin;
  return base.includes('.') ? base.slice(0, base.lastIndexOf('.')) : base;
}
