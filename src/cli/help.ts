import { Help } from '@oclif/core/help';
import type { Command } from '@oclif/core/command';

/**
 * oclif writes usage lines as `$ <bin> <command id> ...`, and every brine binary shares one oclif
 * root whose bin is `salt`: `salt-key --help` would read `$ salt salt-key`. Each binary is its own
 * program, so its usage starts with its own name.
 */
export default class BrineHelp extends Help {
  override formatCommand(command: Command.Loadable): string {
    return super.formatCommand(command).split(`$ ${this.config.bin} ${command.id}`).join(`$ ${command.id}`);
  }
}
