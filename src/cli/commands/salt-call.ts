import { Command } from '@oclif/core/command';
import { SALT_CALL } from '../flag-specs';
import { oclifArgs, oclifFlags } from '../flags';

/** oclif's salt-call, for --help and the command lines quick-parse leaves to oclif (main.ts). */
export default class SaltCall extends Command {
  static override summary = 'Run a function on this minion, and send the return to the master unless --local';
  static override examples = ['salt-call --local test.ping', 'salt-call grains.items', "salt-call cmd.run 'uptime'"];
  static override strict = false;
  static override args = oclifArgs(SALT_CALL);
  static override flags = oclifFlags(SALT_CALL.flags);

  async run(): Promise<void> {
    const { flags, raw } = await this.parse(SaltCall);
    const { positionalWords } = await import('../args.js');
    const { saltCallCommand } = await import('../salt-call.js');
    await saltCallCommand(flags, positionalWords(raw));
  }
}
