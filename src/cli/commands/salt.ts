import { Command } from '@oclif/core/command';
import { SALT } from '../flag-specs';
import { oclifArgs, oclifFlags } from '../flags';

/** oclif's salt, for --help and the command lines quick-parse leaves to oclif (main.ts). */
export default class Salt extends Command {
  static override summary = 'Publish a command to the minions that match a target';
  static override usage = "[options] '<target>' <function> [arguments]";
  static override examples = ["salt '*' test.ping", "salt -G 'os:Debian' cmd.run 'uptime'", 'salt -L web1,db1 test.echo hello'];
  static override strict = false;
  static override args = oclifArgs(SALT);
  static override flags = oclifFlags(SALT.flags);

  async run(): Promise<void> {
    const { flags, raw } = await this.parse(Salt);
    const { positionalWords } = await import('../args.js');
    const { saltCommand } = await import('../salt.js');
    await saltCommand(flags, positionalWords(raw));
  }
}
