import type { KeyObject } from 'node:crypto';
import { Crypticle } from '../crypto/crypticle';
import { oaepDecrypt, publicKeyFromPem, publicPemOf } from '../crypto/rsa';
import { buildAuthReply } from '../channel';
import type { AuthRequest } from '../protocol/loads';
import type { Logger } from '../log';
import type { KeyStore } from './key-store';
import type { PublishKey } from './publish-key';
import type { Sessions } from './sessions';
import type { MasterEvents } from './events';

export interface AuthPolicy {
  autoAccept: boolean;
  publishPort: number;
}

/**
 * The master's side of Salt's sign-in (`_auth`): decides from the key store whether the minion is
 * accepted, pending, rejected or denied, and for an accepted one hands out the publish key and a
 * fresh session key, both encrypted to the minion's own public key.
 */
export class AuthService {
  private readonly masterPublicPem: string;

  constructor(
    private readonly keys: KeyStore,
    private readonly masterKey: KeyObject,
    private readonly publishKey: PublishKey,
    private readonly sessions: Sessions,
    private readonly events: MasterEvents,
    private readonly policy: AuthPolicy,
    private readonly log: Logger,
  ) {
    this.masterPublicPem = publicPemOf(masterKey);
  }

  handle(req: AuthRequest): Buffer {
    const { id, nonce } = req;
    this.log.info(`Authentication request from ${id}`);
    let decision = this.keys.authDecision(id, req.pub);
    if (decision.state === 'pending' && this.policy.autoAccept) {
      this.keys.accept([id]);
      decision = { state: 'accepted' };
    }
    switch (decision.state) {
      case 'rejected':
        this.log.info(`Public key rejected for ${id}. Key is present in rejection key dir.`);
        this.events.fire('salt/auth', { result: false, act: 'reject', id, pub: req.pub });
        return buildAuthReply(this.masterKey, { kind: 'rejected', nonce });
      case 'denied':
        this.log.warning(
          `Authentication attempt from ${id} failed, the public keys did not match. ` +
            `This may be an attempt to compromise the Salt cluster, or two machines share the id '${id}'. ` +
            `Known key ${decision.knownFingerprint}, offered key ${decision.offeredFingerprint}; the offered key was put in minions_denied.`,
        );
        this.events.fire('salt/auth', { result: false, act: 'denied', id, pub: req.pub });
        return buildAuthReply(this.masterKey, { kind: 'rejected', nonce });
      case 'pending':
        this.log.info(`New public key for ${id} placed in pending`);
        this.events.fire('salt/auth', { result: true, act: 'pend', id, pub: req.pub });
        return buildAuthReply(this.masterKey, { kind: 'pending', nonce });
      case 'accepted':
        return this.accept(req);
    }
  }

  private accept(req: AuthRequest): Buffer {
    const minionKey = publicKeyFromPem(req.pub);
    const sessionKey = Crypticle.generateKeyString();
    // The token proves to the minion that this master holds the private key it cached.
    const token = req.token ? oaepDecrypt(this.masterKey, req.token) : undefined;
    const reply = buildAuthReply(this.masterKey, {
      kind: 'accepted',
      minionPublicKey: minionKey,
      publishPort: this.policy.publishPort,
      aesKey: this.publishKey.keyString,
      aesSig: this.publishKey.sig,
      sessionKey,
      token,
      masterPublicPem: this.masterPublicPem,
      nonce: req.nonce,
    });
    this.sessions.open(req.id, sessionKey, minionKey);
    this.events.fire('salt/auth', { result: true, act: 'accept', id: req.id, pub: req.pub });
    return reply;
  }
}
