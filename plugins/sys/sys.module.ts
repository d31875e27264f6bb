import {
  CommandExecutionError,
  Fn,
  IMinionControl,
  IModules,
  InvocationError,
  Module,
  arg,
  fnmatch,
  inject,
  type ArgSpec,
  type PluginKind,
} from 'brine/plugin';

/** Module and function names given as `*args`: strings, or numbers as Python's str() writes them. */
function names(args: unknown[]): string[] {
  return args.map((a) => {
    if (typeof a === 'string') return a;
    if (typeof a === 'number') return String(a);
    throw new InvocationError(`module and function names must be strings, got ${JSON.stringify(a)}`);
  });
}

type Globs = { names: unknown[] };

@Module('sys', { doc: "The loader's view: modules, functions, their docs and argument specs" })
export class SysModule {
  constructor(
    @inject(IModules) private readonly modules: IModules,
    // Optional: without a minion (a bare loader) every function but reload_modules still works.
    @inject(IMinionControl, { optional: true }) private readonly control: IMinionControl | undefined,
  ) {}

  @Fn({
    summary: 'List the available modules; globs are matched against function names, as Salt does',
    examples: ["salt '*' sys.list_modules", "salt '*' sys.list_modules 's*'"],
    args: {},
    varargs: 'names',
  })
  list_modules({ names: args }: Globs): string[] {
    return this.modulesMatching('execution', args);
  }

  @Fn({
    summary: 'List the functions of modules, or the functions matching globs',
    examples: ["salt '*' sys.list_functions", "salt '*' sys.list_functions sys", "salt '*' sys.list_functions 'sys.list_*'"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  list_functions({ names: args }: Globs): string[] {
    return this.functionsMatching('execution', args);
  }

  @Fn({
    summary: 'Return the docstrings of all functions, of a module, of a function, or of globs',
    examples: ["salt '*' sys.doc", "salt '*' sys.doc sys", "salt '*' sys.doc sys.doc", "salt '*' sys.doc 'sys.*'"],
    args: {},
    varargs: 'names',
  })
  doc({ names: args }: Globs): Record<string, string> {
    return this.docsMatching('execution', args, false) as Record<string, string>;
  }

  @Fn({
    summary: 'List the state modules loaded on the minion; globs are matched against state function names',
    examples: ["salt '*' sys.list_state_modules", "salt '*' sys.list_state_modules 'mysql_*' file"],
    args: {},
    varargs: 'names',
  })
  list_state_modules({ names: args }: Globs): string[] {
    return this.modulesMatching('state', args);
  }

  @Fn({
    summary: 'Return the docstrings of state functions (and of their state modules), of all or of states, functions or globs',
    examples: ["salt '*' sys.state_doc", "salt '*' sys.state_doc file", "salt '*' sys.state_doc file.managed 'cmd.*'"],
    args: {},
    varargs: 'names',
  })
  state_doc({ names: args }: Globs): Record<string, string | null> {
    return this.docsMatching('state', args, true);
  }

  @Fn({
    summary: "List the runner modules brine knows on this minion (the master's built-in runner plugins and those of module_dirs)",
    description: "The master's jobs.* and doc.* runners are part of the master itself and are not listed here.",
    examples: ["salt '*' sys.list_runners", "salt '*' sys.list_runners 'm*'"],
    args: {},
    varargs: 'names',
  })
  list_runners({ names: args }: Globs): string[] {
    return this.modulesMatching('runner', args);
  }

  @Fn({
    summary: 'Return the docstrings of runner functions, of all or of runners, functions or globs',
    examples: ["salt '*' sys.runner_doc", "salt '*' sys.runner_doc manage", "salt '*' sys.runner_doc 'cache.*'"],
    args: {},
    varargs: 'names',
  })
  runner_doc({ names: args }: Globs): Record<string, string> {
    return this.docsMatching('runner', args, false) as Record<string, string>;
  }

  /** Salt's list_modules/list_state_modules/list_runners: modules by name, or by a glob over their functions. */
  private modulesMatching(kind: PluginKind, args: unknown[]): string[] {
    if (args.length === 0) return this.modules.moduleNames(kind);
    const funcs = this.modules.functionNames(kind);
    const found = new Set<string>();
    for (const pattern of names(args)) {
      for (const fun of funcs) {
        const mod = fun.split('.')[0];
        if (pattern.includes('*') ? fnmatch(pattern, fun) : mod === pattern) found.add(mod);
      }
    }
    return [...found].sort();
  }

  /**
   * Salt's sys.doc/state_doc/runner_doc: every function, or those of a module ("sys" and "sys."
   * match sys.*, not sysctl.*), a function, or a glob. state_doc adds each module's own doc under
   * the module's name (None when it has none).
   */
  private docsMatching(kind: PluginKind, args: unknown[], moduleDocs: boolean): Record<string, string | null> {
    const funcs = this.modules.functionNames(kind);
    const docs: Record<string, string | null> = {};
    const add = (f: string): void => {
      const mod = f.split('.')[0];
      if (moduleDocs && !(mod in docs)) docs[mod] = this.modules.moduleDoc(mod, kind) || null;
      docs[f] = this.modules.doc(f, kind) ?? '';
    };
    if (args.length === 0) funcs.forEach(add);
    for (const mod of names(args)) {
      if (mod.includes('*')) {
        funcs.filter((f) => fnmatch(mod, f)).forEach(add);
      } else {
        const target = mod === '' ? '' : mod.endsWith('.') ? mod : `${mod}.`;
        funcs.filter((f) => f === mod || f.startsWith(target)).forEach(add);
      }
    }
    return docs;
  }

  @Fn({
    summary: 'Return the argument specification of functions: {fun: {args, defaults, varargs, kwargs}}',
    examples: ["salt '*' sys.argspec sys", "salt '*' sys.argspec 'sys.*'", "salt '*' sys.argspec sys.argspec"],
    args: { module: arg.string({ default: '' }) },
  })
  argspec({ module: pattern }: { module: string }): Record<string, ArgSpec> {
    return this.argspecsMatching('execution', pattern);
  }

  @Fn({
    summary: 'Return the argument specification of state functions',
    examples: ["salt '*' sys.state_argspec pkg", "salt '*' sys.state_argspec 'file.*'"],
    args: { module: arg.string({ default: '' }) },
  })
  state_argspec({ module: pattern }: { module: string }): Record<string, ArgSpec> {
    return this.argspecsMatching('state', pattern);
  }

  @Fn({
    summary: 'List the functions of state modules, or the state functions matching globs',
    examples: ["salt '*' sys.list_state_functions", "salt '*' sys.list_state_functions file", "salt '*' sys.list_state_functions 'file.*'"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  list_state_functions({ names: args }: Globs): string[] {
    return this.functionsMatching('state', args);
  }

  @Fn({
    summary: 'List the functions of runner modules, or the runner functions matching globs',
    examples: ["salt '*' sys.list_runner_functions", "salt '*' sys.list_runner_functions manage"],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  list_runner_functions({ names: args }: Globs): string[] {
    return this.functionsMatching('runner', args);
  }

  @Fn({
    summary: 'Return the argument specification of runner functions',
    examples: ["salt '*' sys.runner_argspec manage"],
    args: { module: arg.string({ default: '' }) },
  })
  runner_argspec({ module: pattern }: { module: string }): Record<string, ArgSpec> {
    return this.argspecsMatching('runner', pattern);
  }

  @Fn({
    summary: 'List the returners loaded on the minion; globs are matched against returner function names',
    examples: ["salt '*' sys.list_returners", "salt '*' sys.list_returners 's*'"],
    args: {},
    varargs: 'names',
  })
  list_returners({ names: args }: Globs): string[] {
    return this.modulesMatching('returner', args);
  }

  @Fn({
    summary: 'List the functions of returners, or the returner functions matching globs',
    examples: [
      "salt '*' sys.list_returner_functions",
      "salt '*' sys.list_returner_functions syslog",
      "salt '*' sys.list_returner_functions 'pgjsonb.get_*'",
    ],
    args: {},
    varargs: 'names',
    kwargs: true,
  })
  list_returner_functions({ names: args }: Globs): string[] {
    return this.functionsMatching('returner', args);
  }

  @Fn({
    summary: 'Return the docstrings of returner functions, of all or of returners, functions or globs',
    examples: ["salt '*' sys.returner_doc", "salt '*' sys.returner_doc syslog", "salt '*' sys.returner_doc pgjsonb.get_load"],
    args: {},
    varargs: 'names',
  })
  returner_doc({ names: args }: Globs): Record<string, string> {
    return this.docsMatching('returner', args, false) as Record<string, string>;
  }

  @Fn({
    summary: 'Return the argument specification of returner functions',
    examples: ["salt '*' sys.returner_argspec syslog", "salt '*' sys.returner_argspec 'pgjsonb.*'"],
    args: { module: arg.string({ default: '' }) },
  })
  returner_argspec({ module: pattern }: { module: string }): Record<string, ArgSpec> {
    return this.argspecsMatching('returner', pattern);
  }

  /** Salt's list_functions (and its state/runner/returner twins): "sys" matches sys.* but not sysctl.*; a glob or a dotted name is a pattern. */
  private functionsMatching(kind: PluginKind, args: unknown[]): string[] {
    const funcs = this.modules.functionNames(kind);
    if (args.length === 0) return funcs;
    const found = new Set<string>();
    for (const pattern of names(args)) {
      const matches =
        pattern.includes('*') || pattern.includes('.') ? (f: string) => fnmatch(pattern, f) : (f: string) => f.startsWith(`${pattern}.`);
      for (const f of funcs) if (matches(f)) found.add(f);
    }
    return [...found].sort();
  }

  /** Salt's argspec_report: the functions of a module, or those a glob or dotted name matches. */
  private argspecsMatching(kind: PluginKind, pattern: string): Record<string, ArgSpec> {
    const funcs = this.modules.functionNames(kind);
    const chosen =
      pattern.includes('*') || pattern.includes('.')
        ? funcs.filter((f) => fnmatch(pattern, f))
        : funcs.filter((f) => f.startsWith(`${pattern}.`));
    const ret: Record<string, ArgSpec> = {};
    for (const f of chosen) {
      const spec = this.modules.argspec(f, kind);
      if (spec) ret[f] = spec;
    }
    return ret;
  }

  @Fn({
    args: {},
    summary: 'Why modules are missing',
    description: 'Unavailable modules with their __virtual__ reason, and modules that failed to load.',
    examples: ["salt '*' sys.missing_modules"],
  })
  missing_modules(): Record<string, string> {
    const ret: Record<string, string> = {};
    for (const [mod, reason] of Object.entries(this.modules.unavailable())) {
      ret[mod] = reason === null ? `'${mod}' __virtual__ returned False` : `'${mod}' __virtual__ returned False: ${reason}`;
    }
    for (const p of this.modules.problems()) ret[p.module] = `failed to load from ${p.origin}: ${p.message}`;
    return ret;
  }

  @Fn({
    args: {},
    summary: 'Reload every module: new and changed module files take effect for the next jobs',
    examples: ["salt '*' sys.reload_modules"],
  })
  async reload_modules(): Promise<boolean> {
    if (!this.control) throw new CommandExecutionError('Modules cannot be reloaded: this loader runs without a minion');
    await this.control.reloadModules();
    return true;
  }
}
