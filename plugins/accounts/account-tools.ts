import { CommandExecutionError, type IShell, type ShellResult } from 'brine/plugin';

/**
 * The shadow-utils programs (useradd, usermod, groupadd, gpasswd, chage, passwd) the user, group
 * and shadow modules drive, as Salt's modules do: found on PATH first, with Salt's error when missing.
 */
export class AccountTools {
  constructor(private readonly shell: IShell) {}

  /** Salt's `_which`: the program's path, or `Command 'x' cannot be found`. */
  async which(cmd: string): Promise<string> {
    const path = await this.shell.which(cmd);
    if (!path) throw new CommandExecutionError(`Command '${cmd}' cannot be found`);
    return path;
  }

  /** Run argv directly (Salt's `cmd.run_all(cmd, python_shell=False)`). */
  run(argv: string[], stdin?: string): Promise<ShellResult> {
    return this.shell.run(argv, { pythonShell: false, stdin });
  }

  /** `root=` as Salt passes it to the shadow-utils programs (`-R root`). */
  static root(root: string | undefined): string[] {
    return root !== undefined && root !== null ? ['-R', root] : [];
  }
}
