import type { KeyObject } from 'node:crypto';
import { Crypticle } from '../crypto/crypticle';

/** What the master holds for one signed-in minion. */
export interface MinionSession {
  id: string;
  sessionKey: string;
  crypticle: Crypticle;
  publicKey: KeyObject;
  /**
   * The minion's X9.31 `tok` once one has been verified: it is deterministic per key, so later
   * requests need only a byte comparison, not an RSA operation.
   */
  tok?: Buffer;
}

/**
 * Signed-in minions by id. A session ends when the minion's key is deleted or rejected; its next
 * request then gets "bad load" and it has to sign in again.
 */
export class Sessions {
  private readonly byId = new Map<string, MinionSession>();

  open(id: string, sessionKey: string, publicKey: KeyObject): MinionSession {
    const session: MinionSession = { id, sessionKey, crypticle: new Crypticle(sessionKey), publicKey };
    this.byId.set(id, session);
    return session;
  }

  get(id: string): MinionSession | undefined {
    return this.byId.get(id);
  }

  end(id: string): boolean {
    return this.byId.delete(id);
  }
}
