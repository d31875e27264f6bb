import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoadAuth } from '../../src/api/auth';
import { SessionStore, newSessionId } from '../../src/api/sessions';

const dir = mkdtempSync(join(tmpdir(), 'brine-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const pw = join(dir, 'htpasswd');
writeFileSync(pw, 'apiuser:apipass\n');

function loadAuth(now: () => number, tokenDir = join(dir, 'tokens')) {
  return new LoadAuth({ externalAuth: { file: { '^filename': pw, apiuser: ['.*', '@runner'] } }, tokenExpire: 100, tokenDir, now });
}

describe('eauth tokens (LoadAuth, Salt localfs token store)', () => {
  it('mints a 64-hex token for good credentials only, in a 0600 file that outlives the process', async () => {
    let t = 1000;
    const auth = loadAuth(() => t);
    expect(await auth.mkToken({ username: 'apiuser', password: 'bad', eauth: 'file' })).toBeNull();
    expect(await auth.mkToken({ username: 'apiuser', password: 'apipass', eauth: 'nosuch' })).toBeNull();
    const token = (await auth.mkToken({ username: 'apiuser', password: 'apipass', eauth: 'file' }))!;
    expect(token).toMatchObject({ start: 1000, expire: 1100, name: 'apiuser', eauth: 'file' });
    expect(token.token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'tokens', token.token)).mode & 0o777).toBe(0o600);
    expect(loadAuth(() => t).getToken(token.token)).toMatchObject({ name: 'apiuser' }); // another "process"
    expect(auth.authList(token)).toEqual(['.*', '@runner']);
    t = 1101;
    expect(auth.getToken(token.token)).toBeNull();
    expect(readdirSync(join(dir, 'tokens'))).not.toContain(token.token); // expired tokens are removed
  });

  it('ignores names that are not tokens (no path tricks)', () => {
    const auth = loadAuth(() => 0);
    for (const bad of ['../htpasswd', '', 'a'.repeat(64), 42, null]) expect(auth.getToken(bad)).toBeNull();
  });
});

describe('login sessions', () => {
  it('live in memory by default, with a sliding lifetime', () => {
    let t = 0;
    const s = new SessionStore(10, undefined, () => t);
    const id = newSessionId();
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    s.create(id, 'tok');
    t = 9;
    expect(s.get(id)?.token).toBe('tok');
    t = 18; // renewed at 9
    expect(s.get(id)?.token).toBe('tok');
    t = 40;
    expect(s.get(id)).toBeUndefined();
    expect(new SessionStore(10).get(id)).toBeUndefined(); // a restart forgets them
  });

  it('survive a restart when session_dir is set', () => {
    const sdir = join(dir, 'sessions');
    const id = newSessionId();
    new SessionStore(100, sdir).create(id, 'tok');
    expect(new SessionStore(100, sdir).get(id)?.token).toBe('tok');
    // Kept under the SHA-256 of the id: the folder holds no usable session id.
    const key = createHash('sha256').update(id).digest('hex');
    expect(readdirSync(sdir)).toEqual([key]);
    expect(statSync(join(sdir, key)).mode & 0o777).toBe(0o600);
  });
});
