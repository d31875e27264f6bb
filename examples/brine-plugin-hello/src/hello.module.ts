import { CommandExecutionError, Fn, IGrains, IShell, Module, arg, inject } from 'brine/plugin';

/**
 * An example execution module. Services come through the constructor, each named with
 * `@inject(...)`; functions are methods marked with `@Fn`, their arguments declared with `arg.*`.
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

  @Fn({ summary: "Return 'hello world' and the minion's id", examples: ["salt '*' hello.world"] })
  world(): string {
    return `hello world from ${String(this.grains.get('id', 'unknown'))}`;
  }

  // Positional or keyword: `hello.greet bob '?'` and `hello.greet bob punctuation='?'` are one call.
  @Fn({
    summary: 'Greet someone',
    examples: ["salt '*' hello.greet bob punctuation='?'"],
    args: { name: arg.string({ nonEmpty: true }), punctuation: arg.string({ default: '!' }) },
  })
  greet({ name, punctuation }: { name: string; punctuation: string }): string {
    return `hello ${name}${punctuation}`;
  }

  // A failing command is a CommandExecutionError: the job answers Salt's "ERROR: ...".
  @Fn({ summary: 'Return the output of uptime', examples: ["salt '*' hello.uptime"] })
  async uptime(): Promise<string> {
    const res = await this.shell.run(['uptime']);
    if (res.retcode !== 0) throw new CommandExecutionError(`uptime failed with exit code ${res.retcode}`, { info: res.stderr });
    return res.stdout.trim();
  }
}
