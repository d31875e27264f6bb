/** Reads the shared Salt wire vectors at test time: <repo>/../shared/salt-wire. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export const SALT_WIRE = path.resolve(__dirname, '../../..', '..', 'shared/salt-wire');

export function wireFile(relative: string): string {
  return readFileSync(path.join(SALT_WIRE, relative), 'utf8');
}

export interface CrypticleVector {
  label: string;
  key_string: string;
  aes_key_hex: string;
  hmac_key_hex: string;
  message_hex: string;
  iv_hex: string;
  ciphertext_hex: string;
  hmac_sha256_hex: string;
  plaintext_hex: string;
  pkcs7_pad_len: number;
}

export interface X931Vector {
  label: string;
  private_key: string;
  message: string;
  signature_hex: string;
}

export interface Pkcs1Vector {
  label: string;
  private_key: string;
  data_hex: string;
  signature_hex: string;
}

export interface OaepVector {
  label: string;
  private_key: string;
  ciphertext_hex: string;
  plaintext: string;
}

export interface CryptoVectors {
  crypticle: CrypticleVector[];
  x931: X931Vector[];
  pkcs1v15_sha1: Pkcs1Vector[];
  rsa_oaep_sha1: OaepVector[];
}

export function cryptoVectors(): CryptoVectors {
  return JSON.parse(wireFile('crypto.json')) as CryptoVectors;
}

/** The public key file matching a vector's private key path (keys/x.pem -> keys/x.pub). */
export function publicKeyFileOf(privateKeyPath: string): string {
  return privateKeyPath.replace(/\.pem$/, '.pub');
}
