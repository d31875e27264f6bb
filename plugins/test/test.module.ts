import { createHash, randomInt } from 'node:crypto';
import {
  BRINE_VERSION,
  Fn,
  IConfig,
  IJobContext,
  IModules,
  ISalt,
  InvocationError,
  Module,
  inject,
  pyRepr,
  pyTupleRepr,
  pyTypeName,
} from 'brine/plugin';

/** `str(type(v))` in Python 3: `<class 'int'>`. */
function pyClass(v: unknown): string {
  return `<class '${pyTypeName(v)}'>`;
}

/** Python's `int(x)` for the values jobs carry. */
function toInt(v: unknown, what: string): number {
  const n = typeof v === 'string' && /^\s*[-+]?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw new InvocationError(`${what} must be an integer, got ${JSON.stringify(v)}`);
  return n;
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

  @Fn({ doc: "Return the name of the file (without extension) that provides a module: a module_dirs file's name, an npm package's name, or the module's own name for a built-in\n\nCLI Example:\n\n    salt '*' test.provider cmd" })
  provider(module: unknown): string {
    if (typeof module !== 'string') throw new InvocationError('module must be a module name');
    return providerName(module, this.modules.origin(module));
  }

  @Fn({ doc: "Return {provider: module} for every loaded module, keyed by provider as Salt keys it\n\nCLI Example:\n\n    salt '*' test.providers" })
  providers(): Record<string, string> {
    const ret: Record<string, string> = {};
    for (const mod of this.modules.moduleNames()) ret[providerName(mod, this.modules.origin(mod))] = mod;
    return ret;
  }

  @Fn({ doc: "List the module_dirs files that provide no loaded module\n\nCLI Example:\n\n    salt '*' test.not_loaded" })
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

  @Fn({ doc: "Return the option test.foo of the minion configuration, 'unconfigured' when it is not set\n\nCLI Example:\n\n    salt '*' test.conf_test" })
  conf_test(): unknown {
    return this.config.get('test.foo', 'unconfigured');
  }

  @Fn({ doc: "Report how functions and modules line up in the loader: every function, every module, each module's functions, and anything registered on one side only\n\nCLI Example:\n\n    salt '*' test.module_report" })
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

  @Fn({ doc: "Used to make sure the minion is up and responding. Returns True.\n\nCLI Example:\n\n    salt '*' test.ping" })
  ping(): boolean {
    return true;
  }

  @Fn({ doc: "Return a string - used for testing the connection\n\nCLI Example:\n\n    salt '*' test.echo 'foo bar baz quo qux'" })
  echo(text: unknown): unknown {
    return text;
  }

  @Fn({ doc: "Return the version of brine on the minion\n\nCLI Example:\n\n    salt '*' test.version" })
  version(): string {
    return BRINE_VERSION;
  }

  @Fn({ doc: "Returns versions of components used by brine\n\nCLI Example:\n\n    salt '*' test.versions_report" })
  versions_report(): string {
    return versionsReport();
  }

  @Fn({ doc: "Alias of test.versions_report\n\nCLI Example:\n\n    salt '*' test.versions" })
  versions(): string {
    return versionsReport();
  }

  @Fn({ doc: "Sleep for the given number of seconds, then return True\n\nCLI Example:\n\n    salt '*' test.sleep 20" })
  async sleep(length: unknown): Promise<boolean> {
    return sleep(toInt(length, 'length'), this.job.signal);
  }

  @Fn({ doc: "Sleep for a random number of seconds up to max\n\nCLI Example:\n\n    salt '*' test.rand_sleep 60" })
  async rand_sleep(max: unknown = 60): Promise<boolean> {
    return sleep(randomInt(0, toInt(max, 'max') + 1), this.job.signal);
  }

  @Fn({ doc: "Return {args, kwargs} as the function received them, publication data included\n\nCLI Example:\n\n    salt '*' test.arg 1 \"two\" 3.1 txt=\"hello\"" })
  arg(kwargs: Record<string, unknown>, ...args: unknown[]): { args: unknown[]; kwargs: Record<string, unknown> } {
    return { args, kwargs };
  }

  @Fn({ doc: "Return the keyword arguments, publication data included\n\nCLI Example:\n\n    salt '*' test.kwarg num=1 txt=\"two\"" })
  kwarg(kwargs: Record<string, unknown>): Record<string, unknown> {
    return kwargs;
  }

  @Fn({ doc: "Return the Python types of the args and kwargs\n\nCLI Example:\n\n    salt '*' test.arg_type 1 'int'" })
  arg_type(kwargs: Record<string, unknown>, ...args: unknown[]): { args: string[]; kwargs: Record<string, string> } {
    return {
      args: args.map(pyClass),
      kwargs: Object.fromEntries(Object.entries(kwargs).map(([k, v]) => [k, pyClass(v)])),
    };
  }

  @Fn({ doc: "Return the Python repr of the args and kwargs\n\nCLI Example:\n\n    salt '*' test.arg_repr 1 \"two\" 3.1 txt=\"hello\"" })
  arg_repr(kwargs: Record<string, unknown>, ...args: unknown[]): { args: string; kwargs: string } {
    return { args: pyTupleRepr(args), kwargs: pyRepr(kwargs) };
  }

  @Fn({ doc: "Return the num-th Fibonacci number and the seconds it took\n\nCLI Example:\n\n    salt '*' test.fib 3" })
  fib(num: unknown): [number, number] {
    const n = toInt(num, 'num');
    if (n < 0) throw new InvocationError('Negative number is not allowed!');
    const start = performance.now();
    let prev = 0;
    let curr = 1;
    if (n < 2) return [n, (performance.now() - start) / 1000];
    for (let i = 1; i < n; i++) [prev, curr] = [curr, prev + curr];
    return [curr, (performance.now() - start) / 1000];
  }

  @Fn({ doc: "Return the Collatz sequence from start and the seconds it took\n\nCLI Example:\n\n    salt '*' test.collatz 3" })
  collatz(start: unknown): [number[], number] {
    let n = toInt(start, 'start');
    if (n < 1) throw new InvocationError('start must be a positive integer');
    const begin = performance.now();
    const steps: number[] = [];
    while (n !== 1) {
      steps.push(n);
      n = n % 2 === 0 ? n / 2 : n * 3 + 1;
    }
    return [steps, (performance.now() - begin) / 1000];
  }

  @Fn({ doc: "Return the data passed in, to test the outputter\n\nCLI Example:\n\n    salt '*' test.outputter foobar" })
  outputter(data: unknown): unknown {
    return data;
  }

  @Fn({ doc: "Set the job's return code and return True\n\nCLI Example:\n\n    salt '*' test.retcode 42" })
  retcode(code: unknown = 42): boolean {
    this.job.retcode = toInt(code, 'code');
    return true;
  }

  @Fn({ doc: "Raise an exception with the given message\n\nCLI Example:\n\n    salt '*' test.exception 'Oh noes!'" })
  exception(message: unknown = 'Test Exception'): never {
    throw new TestException(String(message));
  }

  @Fn({ name: 'true', doc: "Always return True\n\nCLI Example:\n\n    salt '*' test.true" })
  true_(): boolean {
    return true;
  }

  @Fn({ name: 'false', doc: "Always return False\n\nCLI Example:\n\n    salt '*' test.false" })
  false_(): boolean {
    return false;
  }

  @Fn({ doc: "Hash a random number between 1 and size (hash_type: the config's hash_type, default sha256)\n\nCLI Example:\n\n    salt '*' test.random_hash hash_type=sha512" })
  random_hash(size: unknown = 9999999999, hash_type: unknown = null): string {
    const algo = String(hash_type ?? this.config.get('hash_type', 'sha256'));
    const max = toInt(size, 'size');
    if (max < 1) throw new InvocationError('size must be at least 1');
    const value = Math.floor(Math.random() * max) + 1;
    try {
      return createHash(algo).update(String(value)).digest('hex');
    } catch {
      throw new InvocationError(`Invalid hash type: ${algo}`);
    }
  }

  @Fn({ doc: "Call another module function through the loader\n\nCLI Example:\n\n    salt '*' test.cross_test test.echo '[hi]'" })
  async cross_test(func: unknown, args: unknown = null): Promise<unknown> {
    if (typeof func !== 'string') throw new InvocationError('func must be a function name such as test.echo');
    const list = args === null || args === undefined ? [] : Array.isArray(args) ? args : [args];
    return this.salt.call(func, list);
  }

  @Fn({ doc: "Return the minion's configuration options\n\nCLI Example:\n\n    salt '*' test.get_opts" })
  get_opts(): Record<string, unknown> {
    return this.config.all();
  }

  @Fn({ doc: "Return the current stack trace\n\nCLI Example:\n\n    salt '*' test.stack" })
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

function versionsReport(): string {
  const v = process.versions;
  return [
    'Brine Version:',
    `          brine: ${BRINE_VERSION}`,
    '',
    'Dependency Versions:',
    `           node: ${v.node}`,
    `             v8: ${v.v8}`,
    `        openssl: ${v.openssl}`,
    '',
    'System Versions:',
    `       platform: ${process.platform}`,
    `           arch: ${process.arch}`,
  ].join('\n');
}
