import type { KeyObject } from 'node:crypto';
import { makeAesSig } from '../channel';
import { Crypticle } from '../crypto/crypticle';

/**
 * The master's one AES publish key. Every accepted minion gets it at sign-in; it is replaced when
 * a key is deleted or rejected, so a removed minion cannot read the next job. The X9.31 signature
 * over its sha256 is the same for every minion, so it is computed once per key, not per sign-in.
 */
export class PublishKey {
  private current!: { keyString: string; crypticle: Crypticle; sig: Buffer };

  constructor(private readonly masterKey: KeyObject) {
    this.rotate();
  }

  get keyString(): string {
    return this.current.keyString;
  }

  get crypticle(): Crypticle {
    return this.current.crypticle;
  }

  /** X9.31(master key, sha256 hex of the key string), as the `sig` of an accepted auth reply. */
  get sig(): Buffer {
    return this.current.sig;
  }

  rotate(): void {
    const keyString = Crypticle.generateKeyString();
    this.current = { keyString, crypticle: new Crypticle(keyString), sig: makeAesSig(this.masterKey, keyString) };
  }
}
