import { readdirSync, readFileSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureKeyPair, writeFileAtomicAsync } from '../../../src/core/crypto/key-files';
import { publicPemOf } from '../../../src/core/crypto/rsa';
import { cacheMasterKey, ensureMinionKeys, readCachedMasterKey } from '../../../src/core/minion/minion-keys';
import { KeyStore } from '../../../src/core/master/key-store';
import { tempDirs } from '../../support/temp-dirs';

const tmp = tempDirs('brine-keyfiles-');
const mode = (file: string) => statSync(file).mode & 0o777;

describe('ensureKeyPair: the one writer of RSA key files', () => {
  it('writes NAME.pem 0400 and NAME.pub 0644 as Salt gen_keys does, then keeps them', () => {
    const dir = join(tmp(), 'pki');
    const first = ensureKeyPair(dir, 'master', 2048);
    expect(first.created).toBe(true);
    expect(mode(join(dir, 'master.pem'))).toBe(0o400);
    expect(mode(join(dir, 'master.pub'))).toBe(0o644);
    expect(readdirSync(dir).sort()).toEqual(['master.pem', 'master.pub']); // no temp files left
    const again = ensureKeyPair(dir, 'master', 2048);
    expect(again.created).toBe(false);
    expect(again.privatePem).toBe(first.privatePem);
    expect(again.publicPem).toBe(first.publicPem);
  });

  it('writes a lost public key again from the private key', () => {
    const dir = tmp();
    const first = ensureKeyPair(dir, 'minion', 2048);
    unlinkSync(join(dir, 'minion.pub'));
    const again = ensureKeyPair(dir, 'minion', 2048);
    expect(again.created).toBe(false);
    expect(readFileSync(join(dir, 'minion.pub'), 'utf8')).toBe(publicPemOf(first.privateKey));
    expect(mode(join(dir, 'minion.pub'))).toBe(0o644);
  });

  it('is what the master, the minion and salt-key --gen-keys use (same modes everywhere)', () => {
    const root = tmp();
    new KeyStore({ pkiDir: join(root, 'master') }).ensureMasterKeys(2048);
    ensureMinionKeys(join(root, 'minion'), 2048);
    KeyStore.genKeys(join(root, 'gen'), 'web1', 2048);
    for (const file of ['master/master.pem', 'minion/minion.pem', 'gen/web1.pem']) expect(mode(join(root, file))).toBe(0o400);
    for (const file of ['master/master.pub', 'minion/minion.pub', 'gen/web1.pub']) expect(mode(join(root, file))).toBe(0o644);
  });
});

describe('writeFileAtomicAsync: an atomic write off the event loop', () => {
  it('replaces the file whole with the mode asked for, leaving no temp file', async () => {
    const dir = tmp();
    const file = join(dir, 'minion_master.pub');
    await writeFileAtomicAsync(file, 'first\n', 0o644);
    await writeFileAtomicAsync(file, 'second\n', 0o600);
    expect(readFileSync(file, 'utf8')).toBe('second\n');
    expect(mode(file)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['minion_master.pub']);
  });

  it('rejects with the cause when the folder is missing, and leaves nothing behind', async () => {
    const dir = tmp();
    await expect(writeFileAtomicAsync(join(dir, 'gone', 'f'), 'x', 0o644)).rejects.toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("is how a minion caches its master's key on first contact", async () => {
    const dir = tmp();
    const master = ensureKeyPair(join(dir, 'master'), 'master', 2048);
    await cacheMasterKey(dir, `\n${master.publicPem}\n\n`);
    expect(mode(join(dir, 'minion_master.pub'))).toBe(0o644);
    expect(readCachedMasterKey(dir)?.pem).toBe(master.publicPem.trim());
  });
});
