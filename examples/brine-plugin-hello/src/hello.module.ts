import { CommandExecutionError, Fn, IGrains, IShell, InvocationError, Module, inject } from 'brine/plugin';

/**
 * An example execution module. Services come through the constructor, each named with
 * `@inject(...)`; functions are plain methods marked with `@Fn`.
 */
@Module('hello', {
  doc: 'Say hello from the minion',
  // Salt's __virtual__: unavailable (with the reason) on hosts that are not Linux or macOS.
  available: (grains) => grains.kernel === 'Linux' || grains.kernel === 'Darwin' || 'hello needs a POSIX kernel (Linux or Darwin)',
})
export class HelloModule {
  constructor(
    @inject(IShell) private readonly shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
  ) {}

  /** Say hello. */
  @Fn({ summary: "Return 'hello world' and the minion's id", examples: ["salt '*' hello.world"] })
  world(): string {
    return `hello world from ${String(this.grains.get('id', 'unknown'))}`;
  }

  /** Positional and keyword arguments: `salt '*' hello.greet bob punctuation='?'`. */
  @Fn({ summary: "Greet someone", examples: ["salt '*' hello.greet bob punctuation='?'"] })
  greet(name: unknown, punctuation: unknown = '!'): string {
    if (typeof name !== 'string' || name === '') throw new InvocationError('name must be a non-empty string');
    return `hello ${name}${String(punctuation)}`;
  }

  /** Uses the shell service; a failing command is a CommandExecutionError (Salt's "ERROR: ..."). */
  @Fn({ summary: "Return the output of uptime", examples: ["salt '*' hello.uptime"] })
  async uptime(): Promise<string> {
    const res = await this.shell.run(['uptime']);
    if (res.retcode !== 0) throw new CommandExecutionError(`uptime failed with exit code ${res.retcode}`, { info: res.stderr });
    return res.stdout.trim();
  }
}
