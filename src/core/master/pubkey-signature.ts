/**
 * Salt's signed master public key (`master_sign_pubkey`): a second key pair, `master_sign.pem`
 * (`master_sign_key_name`), vouches for the master's key. Every accepted sign-in reply carries
 * `pub_sig`, the signature of the master key it sends; a minion with `verify_master_pubkey_sign`
 * and `master_sign.pub` checks it, and trusts a new master key that the signing key vouches for
 * (a master re-keyed, or another master of a failover group).
 *
 * Two ways, as Salt's MasterKeys and channel/server.py have them:
 * - the master signs its key itself with `<pki_dir>/master_sign.pem` (made at the first start):
 *   `pub_sig` is base64 with a newline (binascii.b2a_base64; bytes, a raw string on the wire), signed with the
 *   algorithm the minion's request names;
 * - `master_use_pubkey_signature`: the signature was made elsewhere (`salt-key --gen-signature`)
 *   and is read from `<pki_dir>/<master_pubkey_signature>`, sent as text whatever the request names;
 *   the signing key need not be on the master at all.
 */
import type { KeyObject } from 'node:crypto';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { makePubSig, wirePem } from '../channel';
import { ensureKeyPair, PUBLIC_KEY_MODE, writeFileAtomic } from '../crypto/key-files';
import { statOrUndefined } from './key-files';
import type { RsaHash } from '../crypto/rsa-algorithms';
import { ConfigError } from '../errors';
import type { Logger } from '../log';

export interface PubkeySignatureSettings {
  pki_dir: string;
  keysize: number;
  master_sign_pubkey?: boolean;
  master_sign_key_name?: string;
  master_use_pubkey_signature?: boolean;
  master_pubkey_signature?: string;
}

/** The `pub_sig` of each accepted sign-in reply, by the hash the minion's `sig_algo` names. */
export interface PubkeySignature {
  pubSig(hash: RsaHash): Buffer | string;
}

/**
 * The master's `pub_sig` source, or undefined without `master_sign_pubkey`. `masterPublicPem`: the
 * master key as the replies send it. A missing signature file is a ConfigError with Salt's advice.
 */
export function pubkeySignature(s: PubkeySignatureSettings, masterPublicPem: string, log: Logger): PubkeySignature | undefined {
  if (!s.master_sign_pubkey) return undefined;
  if (s.master_use_pubkey_signature) {
    const file = join(s.pki_dir, s.master_pubkey_signature || 'master_pubkey_signature');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new ConfigError(
        'BAD_CONFIG',
        `Signing the master.pub key with a signature is enabled but no signature file found at the defined location ${file}`,
        { hint: "The signature-file may be either named differently or has to be created with 'salt-key --gen-signature'" },
      );
    }
    const signature = wirePem(text); // Salt's clean_key
    log.info(`Read master.pub's signature from ${s.master_pubkey_signature || 'master_pubkey_signature'}`);
    return { pubSig: () => signature };
  }
  const name = s.master_sign_key_name || 'master_sign';
  const { privateKey } = ensureKeyPair(s.pki_dir, name, s.keysize);
  return new SignedByMaster(privateKey, masterPublicPem);
}

/** The master signs its own key, once per hash asked for (PKCS#1 v1.5 signs alike each time). */
class SignedByMaster implements PubkeySignature {
  private readonly made = new Map<RsaHash, Buffer>();

  constructor(
    private readonly signingKey: KeyObject,
    private readonly masterPublicPem: string,
  ) {}

  pubSig(hash: RsaHash): Buffer {
    let sig = this.made.get(hash);
    if (!sig) {
      sig = makePubSig(this.signingKey, this.masterPublicPem, hash);
      this.made.set(hash, sig);
    }
    return sig;
  }
}

/** What `salt-key --gen-signature` was given, and the master's two names for the files. */
export interface GenSignatureOptions {
  pkiDir: string;
  /** --priv: the signing key (default pki_dir/master_sign.pem). */
  priv?: string;
  /** --pub: the key to sign (default pki_dir/master.pub). */
  pub?: string;
  /** --signature-path: the folder of the signature file (default pki_dir). */
  signaturePath?: string;
  /** --auto-create: make the signing pair (master_sign_key_name, keysize bits) when there is none. */
  autoCreate?: boolean;
  keysize: number;
  signKeyName?: string;
  signatureFile?: string;
}

/**
 * Salt's gen_keys_signature: the signing key's PKCS#1 v1.5 SHA-1 signature of the master key, in
 * base64 and a newline, written to <signature path>/<master_pubkey_signature>. `true` once written;
 * `false` when that file exists already (as Salt); else Salt's text for what is missing.
 *
 * What is signed is the master key as the master sends it in `pub_key` (Salt's clean_key: no
 * trailing newline), which is what every minion verifies. Salt 3007's salt-key signs the file with
 * its newline, so its own minions fail to verify the signature it makes.
 */
export function genKeysSignature(o: GenSignatureOptions): true | false | string {
  const isFile = (file: string) => statOrUndefined(file)?.isFile() === true;
  let pub = o.pub || undefined;
  if (pub !== undefined && !isFile(pub)) return `Public-key ${pub} does not exist`;
  pub ??= isFile(join(o.pkiDir, 'master.pub')) ? join(o.pkiDir, 'master.pub') : undefined;
  let priv = o.priv || undefined;
  if (priv !== undefined && !isFile(priv)) return `Private-key ${priv} does not exist`;
  // Salt looks for master_sign.pem whatever master_sign_key_name says; --auto-create uses the name.
  priv ??= isFile(join(o.pkiDir, 'master_sign.pem')) ? join(o.pkiDir, 'master_sign.pem') : undefined;
  if (priv === undefined) {
    if (!o.autoCreate) return 'No usable private-key found';
    const name = o.signKeyName || 'master_sign';
    ensureKeyPair(o.pkiDir, name, o.keysize);
    priv = join(o.pkiDir, `${name}.pem`);
  }
  if (pub === undefined) return 'No usable public-key found';
  const dir = o.signaturePath || o.pkiDir;
  if (statOrUndefined(dir)?.isDirectory() !== true) return `Signature path ${dir} is not a directory`;
  const target = join(dir, o.signatureFile || 'master_pubkey_signature');
  if (isFile(target)) return false;
  writeFileAtomic(target, makePubSig(readFileSync(priv, 'utf8'), readFileSync(pub, 'utf8'), 'sha1').toString('latin1'), PUBLIC_KEY_MODE);
  return true;
}
