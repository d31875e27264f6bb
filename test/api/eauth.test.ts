import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkHtpasswdHash, eauthBackend, EauthError } from '../../src/api/eauth';

const dir = mkdtempSync(join(tmpdir(), 'brine-eauth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe('external_auth: file', () => {
  it('reads ^filetype: text files of user:password lines (Salt stops at the first line of the user)', async () => {
    const f = file('text', 'apiuser:apipass\nlimited:limitedpass\napiuser:second\n');
    const b = eauthBackend('file', { file: { '^filename': f, '^filetype': 'text' } })!;
    expect(await b.auth('apiuser', 'apipass')).toBe(true);
    expect(await b.auth('apiuser', 'second')).toBe(false);
    expect(await b.auth('limited', 'limitedpass')).toBe(true);
    expect(await b.auth('limited', 'wrong')).toBe(false);
    expect(await b.auth('nobody', 'x')).toBe(false);
  });

  it('reads hex digests (^hashtype) and other separators and field numbers', async () => {
    const f = file('digest', 'x|bob|5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8\n');
    const b = eauthBackend('file', {
      file: { '^filename': f, '^hashtype': 'sha256', '^field_separator': '|', '^username_field': 2, '^password_field': 3 },
    })!;
    expect(await b.auth('bob', 'password')).toBe(true);
    expect(await b.auth('bob', 'Password')).toBe(false);
  });

  it('reads htpasswd files: bcrypt, Apache MD5 and {SHA}, as made by htpasswd -B, -m and -s', async () => {
    // htpasswd -nbB alice secret / -nbm / -nbs
    expect(await checkHtpasswdHash('$2y$05$EJCAsiPFqvYz2apgsTqinebWAebnNWu7cj36TSHgNVz7fRbfwNw/S', 'secret')).toBe(true);
    expect(await checkHtpasswdHash('$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/', 'myPassword')).toBe(true);
    expect(await checkHtpasswdHash('$apr1$r31.....$HqJZimcKQFAMYayBlzkrA/', 'other')).toBe(false);
    expect(await checkHtpasswdHash('{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=', 'secret')).toBe(true);
    await expect(checkHtpasswdHash('$6$salt$abc', 'x')).rejects.toMatchObject({ code: 'UNSUPPORTED_HASH' });
    const f = file('htpasswd', 'alice:{SHA}5en6G6MezRroT3XKqkdPOmY/BfQ=\n');
    const b = eauthBackend('file', { file: { '^filename': f, '^filetype': 'htpasswd' } })!;
    expect(await b.auth('alice', 'secret')).toBe(true);
    expect(await b.auth('alice', 'nope')).toBe(false);
  });

  it('refuses a backend that is not configured, and names a missing ^filename or file', async () => {
    expect(eauthBackend('file', {})).toBeUndefined();
    expect(() => eauthBackend('file', { file: {} })).toThrow(EauthError);
    const b = eauthBackend('file', { file: { '^filename': join(dir, 'missing') } })!;
    await expect(b.auth('a', 'b')).rejects.toMatchObject({ code: 'EAUTH_FILE_UNREADABLE' });
  });

  it('auto approves anyone; pam names the missing piece', async () => {
    expect(await eauthBackend('auto', { auto: { '*': ['.*'] } })!.auth('x', 'y')).toBe(true);
    await expect(eauthBackend('pam', { pam: {} })!.auth('root', 'x')).rejects.toMatchObject({ code: 'PAM_UNAVAILABLE' });
  });
});
