import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeyStore, sortIgnoreCase } from '../../../src/core/master/key-store';
import { fingerprint } from '../../../src/core/crypto/rsa';
import { codeOf } from '../../support/errors';

const KEYS = path.resolve(__dirname, '../../..', '..', 'shared/salt-wire/keys');
const pub = (name: string) => readFileSync(path.join(KEYS, `${name}.pub`), 'utf8');
/** The form a minion sends on the wire: stripped, no trailing newline. */
const wirePub = (name: string) => pub(name).trim();

let dir: string;
let store: KeyStore;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'brine-keys-'));
  store = new KeyStore({ pkiDir: dir });
  store.ensureLayout();
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('KeyStore layout and master keys', () => {
  it('creates the four state directories', () => {
    expect(readdirSync(dir).sort()).toEqual(['minions', 'minions_denied', 'minions_pre', 'minions_rejected']);
  });

  it('generates master.pem (0400, as Salt) and master.pub once, then loads them', () => {
    const first = store.ensureMasterKeys(1024);
    expect(first.created).toBe(true);
    expect(statSync(path.join(dir, 'master.pem')).mode & 0o777).toBe(0o400);
    expect(readFileSync(path.join(dir, 'master.pem'), 'utf8')).toBe(first.privatePem);
    expect(readFileSync(path.join(dir, 'master.pub'), 'utf8')).toBe(first.publicPem);
    expect(first.privatePem.startsWith('-----BEGIN RSA PRIVATE KEY-----')).toBe(true);
    const second = new KeyStore({ pkiDir: dir }).ensureMasterKeys(1024);
    expect(second.created).toBe(false);
    expect(second.privatePem).toBe(first.privatePem);
    expect(second.publicPem).toBe(first.publicPem);
    expect(store.localKeys()).toEqual(['master.pem', 'master.pub']);
    expect(store.localFingerprint('master.pub')).toBe(fingerprint(first.publicPem));
  });

  it('rewrites a missing master.pub from master.pem', () => {
    const first = store.ensureMasterKeys(1024);
    rmSync(path.join(dir, 'master.pub'));
    expect(store.ensureMasterKeys(1024).publicPem).toBe(first.publicPem);
    expect(readFileSync(path.join(dir, 'master.pub'), 'utf8')).toBe(first.publicPem);
  });

  it('leaves no temp files behind', () => {
    store.ensureMasterKeys(1024);
    store.registerPending('web1', wirePub('web1'));
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(readdirSync(path.join(dir, 'minions_pre'))).toEqual(['web1']);
  });
});

describe('KeyStore auth decisions', () => {
  it('stores a new key as pending, keeps it pending, and accepts after accept()', () => {
    expect(store.registerPending('web1', wirePub('web1'))).toEqual({ state: 'pending' });
    expect(readFileSync(path.join(dir, 'minions_pre', 'web1'), 'utf8')).toBe(wirePub('web1'));
    expect(store.registerPending('web1', wirePub('web1'))).toEqual({ state: 'pending' });
    expect(store.accept(['web1'])).toEqual({ accepted: ['web1'], invalid: [] });
    expect(store.registerPending('web1', wirePub('web1'))).toEqual({ state: 'accepted' });
    expect(store.authDecision('web1', pub('web1'))).toEqual({ state: 'accepted' });
    expect(store.state('web1')).toBe('accepted');
  });

  it('auto-accepting writes a new key straight to minions/ (as Salt does) and accepts a pending one', () => {
    expect(store.authDecision('web1', wirePub('web1'), true)).toEqual({ state: 'accepted', autoAccepted: true });
    expect(readFileSync(path.join(dir, 'minions', 'web1'), 'utf8')).toBe(wirePub('web1'));
    expect(readdirSync(path.join(dir, 'minions_pre'))).toEqual([]);
    expect(store.authDecision('web1', wirePub('web1'), true)).toEqual({ state: 'accepted' });
    store.registerPending('web2', wirePub('web2'));
    expect(store.authDecision('web2', wirePub('web2'), true)).toEqual({ state: 'accepted', autoAccepted: true });
    expect(store.state('web2')).toBe('accepted');
    // auto-accepting does not overrule a rejection nor a different key
    store.registerPending('db1', wirePub('db1'));
    store.reject(['db1']);
    expect(store.authDecision('db1', wirePub('db1'), true)).toEqual({ state: 'rejected' });
    expect(store.authDecision('web1', wirePub('web2'), true)).toMatchObject({ state: 'denied', knownState: 'accepted' });
  });

  it('auto-rejecting writes a new key to minions_rejected and moves a pending one there, whatever key it is; an accepted key stays', () => {
    expect(store.authDecision('bad1', wirePub('web1'), false, true)).toEqual({ state: 'rejected', autoRejected: true, wasPending: false });
    expect(readFileSync(path.join(dir, 'minions_rejected', 'bad1'), 'utf8')).toBe(wirePub('web1'));
    store.registerPending('bad2', wirePub('web2'));
    expect(store.authDecision('bad2', wirePub('web1'), true, true)).toEqual({ state: 'rejected', autoRejected: true, wasPending: true });
    expect(readFileSync(path.join(dir, 'minions_rejected', 'bad2'), 'utf8')).toBe(wirePub('web2'));
    expect(store.state('bad2')).toBe('rejected');
    store.registerPending('web1', wirePub('web1'));
    store.accept(['web1']);
    expect(store.authDecision('web1', wirePub('web1'), false, true)).toEqual({ state: 'accepted' });
  });

  it('makes a state folder again when it was removed behind its back', () => {
    store.registerPending('web1', wirePub('web1'));
    rmSync(path.join(dir, 'minions_pre'), { recursive: true });
    expect(store.registerPending('web2', wirePub('web2'))).toEqual({ state: 'pending' });
    expect(readdirSync(path.join(dir, 'minions_pre'))).toEqual(['web2']);
  });

  it('denies a different key for an accepted id and records it in minions_denied', () => {
    store.registerPending('web1', wirePub('web1'));
    store.accept(['web1']);
    const decision = store.registerPending('web1', wirePub('web2'));
    expect(decision).toEqual({
      state: 'denied',
      knownState: 'accepted',
      knownFingerprint: fingerprint(pub('web1')),
      offeredFingerprint: fingerprint(pub('web2')),
    });
    expect(readFileSync(path.join(dir, 'minions_denied', 'web1'), 'utf8')).toBe(wirePub('web2'));
    expect(store.state('web1')).toBe('accepted');
    expect(store.list('denied')).toEqual(['web1']);
  });

  it('denies a different key for a pending id', () => {
    store.registerPending('db1', wirePub('db1'));
    expect(store.registerPending('db1', wirePub('web1')).state).toBe('denied');
    expect(store.publicKey('db1', 'pending')).toBe(wirePub('db1'));
  });

  it('answers rejected for a rejected id, whatever the key', () => {
    store.registerPending('web2', wirePub('web2'));
    expect(store.reject(['web2'])).toEqual(['web2']);
    expect(store.registerPending('web2', wirePub('web2'))).toEqual({ state: 'rejected' });
    expect(store.registerPending('web2', wirePub('db1'))).toEqual({ state: 'rejected' });
  });

  it('sees changes made by another process (another KeyStore on the same dir)', () => {
    const other = new KeyStore({ pkiDir: dir });
    store.registerPending('web1', wirePub('web1'));
    expect(store.acceptedPem('web1')).toBeUndefined();
    other.accept(['web1']);
    expect(store.acceptedPem('web1')).toContain('PUBLIC KEY-----');
    expect(store.acceptedPem('web1')).toBe(store.acceptedPem('web1'));
    other.delete(['web1']);
    expect(store.acceptedPem('web1')).toBeUndefined();
    expect(store.registerPending('web1', wirePub('web1'))).toEqual({ state: 'pending' });
  });

  it('sees a key file replaced in place by another key', () => {
    store.registerPending('web1', wirePub('web1'));
    store.accept(['web1']);
    expect(store.fingerprint('web1')).toBe(fingerprint(pub('web1')));
    const tmp = path.join(dir, 'x.tmp');
    writeFileSync(tmp, pub('web2'));
    renameSync(tmp, path.join(dir, 'minions', 'web1'));
    expect(store.fingerprint('web1')).toBe(fingerprint(pub('web2')));
  });

  it('refuses a garbage key with BAD_KEY and writes nothing', () => {
    expect(codeOf(() => store.registerPending('web1', 'not a key'))).toBe('BAD_KEY');
    expect(store.list('pending')).toEqual([]);
  });
});

describe('KeyStore ids', () => {
  const bad = [
    '',
    '.',
    '..',
    'a/b',
    '../etc',
    'a\\b',
    'a\u0000b',
    'a\nb',
    'tab\there',
    'del\u007f',
    // Hidden from salt-key -L, or displayed as another id.
    '.root_key',
    '.hidden',
    'web1\u202e',
    '\u202egnp.exe',
    'web\u2215etc',
    'web\uff0e1',
    '\uff0e\uff0e',
    'web1 ',
    ' web1',
    'zero\u200bwidth',
    'x'.repeat(256),
    'é'.repeat(128),
  ];
  for (const id of bad) {
    it(`rejects ${JSON.stringify(id)} with BAD_ID everywhere`, () => {
      expect(codeOf(() => store.registerPending(id, wirePub('web1')))).toBe('BAD_ID');
      expect(codeOf(() => store.deny(id, wirePub('web1')))).toBe('BAD_ID');
      expect(codeOf(() => store.state(id))).toBe('BAD_ID');
      expect(codeOf(() => store.accept([id]))).toBe('BAD_ID');
      expect(codeOf(() => store.reject([id]))).toBe('BAD_ID');
      expect(codeOf(() => store.delete([id]))).toBe('BAD_ID');
      expect(codeOf(() => store.acceptedPem(id))).toBe('BAD_ID');
    });
  }

  it('accepts ordinary ids with dots, dashes and unicode', () => {
    for (const id of ['web1.example.com', 'db-01_x', 'café', 'x'.repeat(255), 'minion with inner spaces']) {
      expect(store.registerPending(id, wirePub('web1')).state).toBe('pending');
    }
  });

  it('refuses a missing pkiDir', () => {
    expect(codeOf(() => new KeyStore({ pkiDir: '' }))).toBe('BAD_PKI_DIR');
  });
});

describe('KeyStore listing, matching and moves', () => {
  beforeEach(() => {
    for (const id of ['web2', 'db1', 'web1', 'Alpha']) store.registerPending(id, wirePub(id === 'Alpha' ? 'db1' : id));
  });

  it('lists sorted ignoring case, skipping dot files', () => {
    writeFileSync(path.join(dir, 'minions_pre', '.web9.tmp'), 'x');
    expect(store.list('pending')).toEqual(['Alpha', 'db1', 'web1', 'web2']);
    expect(store.list('all')).toEqual({ accepted: [], pending: ['Alpha', 'db1', 'web1', 'web2'], rejected: [], denied: [] });
  });

  it('finds by glob and by comma list, per state', () => {
    store.accept(['web1']);
    expect(store.find('web*')).toEqual({ accepted: ['web1'], pending: ['web2'] });
    expect(store.find('db1,web2')).toEqual({ pending: ['db1', 'web2'] });
    expect(store.find('nosuch')).toEqual({});
    expect(store.find('web*', ['pending'])).toEqual({ pending: ['web2'] });
    expect(store.find('[dw]*1')).toEqual({ accepted: ['web1'], pending: ['db1'] });
  });

  it('uses an injected matcher', () => {
    const exact = new KeyStore({ pkiDir: dir, matcher: (p, n) => p === n });
    expect(exact.find('web*')).toEqual({});
    expect(exact.find('web1')).toEqual({ pending: ['web1'] });
  });

  it('moves only from the given states', () => {
    store.reject(['web2']);
    expect(store.accept(['web2'])).toEqual({ accepted: [], invalid: [] });
    expect(store.accept(['web2'], ['pending', 'rejected'])).toEqual({ accepted: ['web2'], invalid: [] });
    expect(store.reject(['web2'])).toEqual([]);
    expect(store.reject(['web2'], ['pending', 'accepted'])).toEqual(['web2']);
    expect(store.state('web2')).toBe('rejected');
  });

  it('reports invalid keys on accept and leaves them pending', () => {
    writeFileSync(path.join(dir, 'minions_pre', 'broken'), 'garbage');
    expect(store.accept(['broken', 'db1'])).toEqual({ accepted: ['db1'], invalid: ['broken'] });
    expect(store.state('broken')).toBe('pending');
  });

  it('deletes from every state and reports what went', () => {
    store.accept(['web1']);
    store.deny('web1', wirePub('web2'));
    expect(store.delete(['web1', 'nosuch'])).toEqual([
      { id: 'web1', state: 'accepted' },
      { id: 'web1', state: 'denied' },
    ]);
    expect(store.state('web1')).toBeUndefined();
    expect(existsSync(path.join(dir, 'minions', 'web1'))).toBe(false);
  });

  it('gives public keys and fingerprints by id', () => {
    expect(store.publicKey('web1')).toBe(wirePub('web1'));
    expect(store.publicKey('nosuch')).toBeUndefined();
    expect(store.fingerprint('web1')).toBe(fingerprint(pub('web1')));
    expect(store.fingerprint('web1', 'md5')).toBe(fingerprint(pub('web1'), 'md5'));
    expect(store.fingerprint('nosuch')).toBeUndefined();
  });
});

describe('sortIgnoreCase', () => {
  it('sorts like Python sorted(key=str.lower), stable for equal keys', () => {
    expect(sortIgnoreCase(['b', 'B', 'a', 'C'])).toEqual(['a', 'b', 'B', 'C']);
  });
});
