import type { KeyObject } from 'node:crypto';
import { publicPemOf } from '../crypto/rsa';
import type { AuthRequest } from '../protocol/loads';
import type { Logger } from '../log';
import { assertMinionId } from '../protocol/minion-id';
import { ProtocolError } from '../errors';
import type { KeyStore } from './key-store';
import type { AutosignGrainsDir, SigningFile } from './signing-file';
import type { PublishKey } from './publish-key';
import type { Sessions } from './sessions';
import type { MasterEvents } from './events';
import { requestedHashes, type MasterRsa, type RequestedHashes } from './master-rsa';
import type { PendingKeyCap } from './sign-in-limits';
import type { PubkeySignature } from './pubkey-signature';

export interface AuthPolicy {
  /** auto_accept: every new key is accepted. */
  autoAccept: boolean;
  /** autosign_file: new keys of matching ids are accepted. */
  autosign: SigningFile;
  /** autoreject_file: new and pending keys of matching ids are rejected (before autosign, as Salt). */
  autoreject?: SigningFile;
  /** autosign_grains_dir: new keys of minions sending a listed grain value are accepted. */
  autosignGrains?: AutosignGrainsDir;
  /** open_mode: every key is accepted, replacing what was there. */
  openMode: boolean;
  publishPort: number;
  /** max_pending_keys: new ids beyond it are answered "pending" without a key file. */
  pendingCap?: PendingKeyCap;
}

/** A 16384-bit RSA public key is under 3 kB of PEM. */
const MAX_PUBLIC_KEY_PEM = 8192;

/** What {@link AuthService} works with. */
export interface AuthServiceDeps {
  keys: KeyStore;
  /** The master's private key (its public half goes into accepted replies). */
  masterKey: KeyObject;
  rsa: MasterRsa;
  publishKey: PublishKey;
  sessions: Sessions;
  events: MasterEvents;
  policy: AuthPolicy;
  log: Logger;
  /** master_sign_pubkey: the `pub_sig` that vouches for the master key in accepted replies. */
  pubkeySignature?: PubkeySignature;
  /**
   * Told of each key this service accepted itself (auto_accept, autosign, open_mode), so the
   * master's accepted set is current at once rather than at its next key-directory reconcile.
   */
  onAccepted?: (id: string) => void;
}

/**
 * The master's side of Salt's sign-in (`_auth`): decides from the key store whether the minion is
 * accepted, pending, rejected or denied, and for an accepted one hands out the publish key and a
 * fresh session key, both encrypted to the minion's own public key. The RSA work of each reply
 * (token decrypt, signature) runs on libuv's thread pool (master-rsa.ts); the decision stays here.
 */
export class AuthService {
  private readonly masterPublicPem: string;
  private readonly keys: KeyStore;
  private readonly rsa: MasterRsa;
  private readonly publishKey: PublishKey;
  private readonly sessions: Sessions;
  private readonly events: MasterEvents;
  private readonly policy: AuthPolicy;
  private readonly log: Logger;
  private readonly onAccepted: (id: string) => void;
  private readonly pubkeySignature?: PubkeySignature;

  constructor(deps: AuthServiceDeps) {
    ({
      keys: this.keys,
      rsa: this.rsa,
      publishKey: this.publishKey,
      sessions: this.sessions,
      events: this.events,
      policy: this.policy,
      log: this.log,
    } = deps);
    this.onAccepted = deps.onAccepted ?? (() => undefined);
    this.pubkeySignature = deps.pubkeySignature;
    this.masterPublicPem = publicPemOf(deps.masterKey);
  }

  async handle(req: AuthRequest): Promise<Buffer> {
    const { id, nonce } = req;
    // Checked before anything logs or stores them: an id names a file, a key is a few kB of PEM.
    assertMinionId(id);
    if (req.pub.length > MAX_PUBLIC_KEY_PEM) {
      throw new ProtocolError('BAD_LOAD', `_auth from ${id}: public key of ${req.pub.length} characters, longer than any RSA key`);
    }
    // Its encryption_algorithm and signing_algorithm: how the keys go to it and how the reply is signed.
    const hashes = requestedHashes(req.enc_algo, req.sig_algo, `_auth from ${id}`);
    this.log.info(`Authentication request from ${id}`);
    if (this.policy.openMode) {
      this.keys.acceptOpen(id, req.pub);
      this.onAccepted(id);
      return this.accept(req, hashes);
    }
    // Which setting accepts a new key, if any (the log line names it).
    const acceptedBy = this.policy.autoAccept
      ? 'auto_accept'
      : this.policy.autosign.matches(id)
        ? 'autosign_file'
        : this.policy.autosignGrains?.matches(req.autosign_grains)
          ? 'autosign_grains_dir'
          : undefined;
    const autoAccepts = acceptedBy !== undefined;
    const cap = this.policy.pendingCap;
    // An id with no key file yet would add one to minions_pre: only below max_pending_keys.
    if (cap && !autoAccepts && this.keys.state(id) === undefined && !cap.allows(this.keys.list('pending').length)) {
      return this.clearReply('pending', nonce, hashes);
    }
    const decision = this.keys.authDecision(id, req.pub, autoAccepts, this.policy.autoreject?.matches(id) ?? false);
    if (decision.state === 'accepted' && decision.autoAccepted) {
      this.onAccepted(id);
      this.log.info(`Accepted key for ${id} (${acceptedBy})`);
    }
    switch (decision.state) {
      case 'rejected':
        if (decision.autoRejected) {
          this.log.info(`${decision.wasPending ? 'Pending' : 'New'} public key for ${id} rejected via autoreject_file`);
        } else this.log.info(`Public key rejected for ${id}. Key is present in rejection key dir.`);
        this.events.fire('salt/auth', { result: false, act: 'reject', id, pub: req.pub });
        return this.clearReply('rejected', nonce, hashes);
      case 'denied':
        this.log.warning(
          `Authentication attempt from ${id} failed, the public keys did not match. ` +
            `This may be an attempt to compromise the Salt cluster, or two machines share the id '${id}'. ` +
            `Known key ${decision.knownFingerprint}, offered key ${decision.offeredFingerprint}; the offered key was put in minions_denied.`,
        );
        this.events.fire('salt/auth', { result: false, act: 'denied', id, pub: req.pub });
        return this.clearReply('rejected', nonce, hashes);
      case 'pending':
        this.log.info(`New public key for ${id} placed in pending`);
        this.events.fire('salt/auth', { result: true, act: 'pend', id, pub: req.pub });
        return this.clearReply('pending', nonce, hashes);
      case 'accepted':
        return this.accept(req, hashes);
    }
  }

  private async clearReply(kind: 'pending' | 'rejected', nonce: string, hashes: RequestedHashes): Promise<Buffer> {
    return (await this.rsa.run({ op: 'authReply', kind, nonce, ...hashes })).reply;
  }

  private async accept(req: AuthRequest, hashes: RequestedHashes): Promise<Buffer> {
    // The minion's session key lives across its sign-ins (see Sessions): requests its other
    // channels have in flight stay readable. Its key was checked by authDecision.
    const sessionKey = this.sessions.open(req.id, req.pub).crypticle.keyString();
    // The publish key and its signature are read together, so a rotation meanwhile cannot pair
    // one key with the other's signature.
    const { keyString: aesKey, sig: aesSig } = this.publishKey;
    // The token proves to the minion that this master holds the private key it cached.
    const { reply, tokenUnreadable } = await this.rsa.run({
      op: 'authReply',
      kind: 'accepted',
      nonce: req.nonce,
      minionPublicPem: req.pub,
      publishPort: this.policy.publishPort,
      aesKey,
      aesSig,
      sessionKey,
      encryptedToken: req.token,
      masterPublicPem: this.masterPublicPem,
      pubSig: this.pubkeySignature?.pubSig(hashes.sigHash ?? 'sha1'),
      ...hashes,
    });
    // A token this key cannot open was made for another master key: the reply goes without it (as
    // Salt does), and the minion, checking our signature against the key it cached, refuses us.
    if (tokenUnreadable) {
      this.log.warning(`The token of ${req.id} was not encrypted to this master's key: the minion cached another master key`);
    }
    this.events.fire('salt/auth', { result: true, act: 'accept', id: req.id, pub: req.pub });
    return reply;
  }
}
