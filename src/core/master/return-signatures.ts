/**
 * The master's options for returns its minions sign (`minion_sign_messages` on the minion, see
 * channel/message-signature.ts), as Salt's `AESFuncs._return` applies them:
 *
 * - `require_minion_sign_messages`: a return without a signature is dropped.
 * - A signature is checked whenever there is one; one that does not verify is logged, and the
 *   return still taken unless `drop_messages_signature_fail` is set.
 *
 * A dropped return is answered `False`, as Salt answers it; the minion does not send it again.
 */
import { minionMessageSigned } from '../channel';
import type { RsaKeyInput } from '../crypto/rsa';
import type { Logger } from '../log';

export interface ReturnSignaturePolicy {
  /** require_minion_sign_messages */
  require: boolean;
  /** drop_messages_signature_fail */
  dropFailed: boolean;
}

export class ReturnSignatures {
  constructor(
    private readonly policy: ReturnSignaturePolicy,
    private readonly log: Logger,
  ) {}

  /**
   * Whether the return from `id` (its load `load`, decrypted msgpack `plain`) is taken, checking
   * its `sig` against the minion's accepted key.
   */
  accepts(id: string, minionPublicKey: RsaKeyInput, load: Record<string, unknown>, plain: Buffer): boolean {
    if (load.sig === undefined) {
      if (!this.policy.require) return true;
      this.log.critical(
        `Dropped a return from ${id}: require_minion_sign_messages is set and it is not signed; ` +
          'set minion_sign_messages: True in its minion config',
      );
      return false;
    }
    if (minionMessageSigned(minionPublicKey, plain, load.sig)) return true;
    if (this.policy.dropFailed) {
      this.log.critical(
        `Dropped a return from ${id}: its signature does not verify against its accepted key (drop_messages_signature_fail)`,
      );
      return false;
    }
    this.log.info(`The signature of a return from ${id} does not verify; taken, since drop_messages_signature_fail is not set`);
    return true;
  }
}
