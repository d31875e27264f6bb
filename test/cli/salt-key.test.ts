import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runSaltKey, SaltKeyOptions } from '../../src/cli/salt-key';
import { KeyStore } from '../../src/core/master/key-store';
import { fingerprint, verifyPkcs1v15 } from '../../src/core/crypto/rsa';

const WIRE = path.resolve(__dirname, '../..', '..', 'shared/salt-wire');
const KEYS = path.join(WIRE, 'keys');
const SAMPLES = readFileSync(path.join(WIRE, 'cli-output-samples.md'), 'utf8');

/** The verbatim output of the sample under `## title`, without the `$ ` line and `[exit code]`. */
function sample(title: string): string {
  const at = SAMPLES.indexOf(`## ${title}\n`);
  if (at < 0) throw new Error(`no sample '${title}'`);
  const start = SAMPLES.indexOf('```text\n', at) + '```text\n'.length;
  const lines = SAMPLES.slice(start, SAMPLES.indexOf('\n```', start)).split('\n');
  const body = lines.filter((l, i) => !(i === 0 && l.startsWith('$ ')) && !/^\[exit code \d+\]$/.test(l));
  return `${body.join('\n')}\n`;
}

const wirePub = (id: string) => readFileSync(path.join(KEYS, `${id}.pub`), 'utf8').trim();

let dir: string;
let store: KeyStore;

interface Run {
  code: number;
  out: string;
  err: string;
  questions: string[];
}

async function run(opts: Partial<SaltKeyOptions>, answer = true): Promise<Run> {
  const r: Run = { code: -1, out: '', err: '', questions: [] };
  r.code = await runSaltKey(
    { pkiDir: dir, ...opts },
    {
      out: (t) => {
        r.out += t;
      },
      err: (t) => {
        r.err += t;
      },
      confirm: async (q) => {
        r.questions.push(q);
        return answer;
      },
    },
  );
  return r;
}

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'brine-salt-key-'));
  store = new KeyStore({ pkiDir: dir });
  store.ensureLayout();
  copyFileSync(path.join(KEYS, 'master.pem'), path.join(dir, 'master.pem'));
  copyFileSync(path.join(KEYS, 'master.pub'), path.join(dir, 'master.pub'));
  for (const id of ['web2', 'db1', 'web1']) store.registerPending(id, wirePub(id));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('salt-key reproduces the captured session byte for byte', () => {
  it('follows the whole sample session', async () => {
    expect(await run({ listAll: true })).toEqual({ code: 0, out: sample('salt-key -L (keys pending)'), err: '', questions: [] });
    expect((await run({ listAll: true, out: 'json' })).out).toBe(sample('salt-key -L --out json'));
    expect((await run({ acceptAll: true, yes: true })).out).toBe(sample('salt-key -A -y'));
    expect((await run({ listAll: true })).out).toBe(sample('salt-key -L (accepted)'));
    expect((await run({ fingerAll: true })).out).toBe(sample('salt-key -F'));
    expect((await run({ delete: 'web2', yes: true })).out).toBe(sample('salt-key -d web2 -y'));
    store.registerPending('web2', wirePub('web2'));
    expect((await run({ listAll: true })).out).toBe(sample('salt-key -L after the deleted minion re-authenticated'));
    expect((await run({ reject: 'web2', yes: true })).out).toBe(sample('salt-key -r web2 -y'));
    expect((await run({ listAll: true })).out).toBe(sample('salt-key -L (rejected)'));
    store.delete(['web2']);
    store.registerPending('web2', wirePub('web2'));
    const accepted = await run({ accept: 'web2', yes: true });
    expect(accepted).toEqual({ code: 0, out: sample('salt-key -a web2 -y'), err: '', questions: [] });
    expect(store.list('accepted')).toEqual(['db1', 'web1', 'web2']);
  });

  it('lists with no command at all, like -L', async () => {
    expect((await run({})).out).toBe(sample('salt-key -L (keys pending)'));
  });
});

describe('salt-key confirmation', () => {
  it('asks "Proceed? [n/Y] " before accepting and does nothing on no', async () => {
    const r = await run({ accept: 'web*' }, false);
    expect(r.questions).toEqual(['Proceed? [n/Y] ']);
    expect(r.out).toBe('The following keys are going to be accepted:\nUnaccepted Keys:\nweb1\nweb2\n');
    expect(store.list('accepted')).toEqual([]);
  });

  it('asks "Proceed? [N/y] " before deleting and deletes on yes', async () => {
    const r = await run({ deleteAll: true }, true);
    expect(r.questions).toEqual(['Proceed? [N/y] ']);
    expect(r.out).toBe(
      'The following keys are going to be deleted:\nUnaccepted Keys:\ndb1\nweb1\nweb2\n' +
        'Key for minion db1 deleted.\nKey for minion web1 deleted.\nKey for minion web2 deleted.\n',
    );
    expect(store.list('pending')).toEqual([]);
  });

  it('rejects all pending keys with -R', async () => {
    const r = await run({ rejectAll: true, yes: true });
    expect(r.out.endsWith('Key for minion db1 rejected.\nKey for minion web1 rejected.\nKey for minion web2 rejected.\n')).toBe(true);
    expect(store.list('rejected')).toEqual(['db1', 'web1', 'web2']);
    // --log-file: each change is logged too.
    const logged: string[] = [];
    await run({ deleteAll: true, yes: true, log: { info: (m) => logged.push(m) } });
    expect(logged).toEqual(['Key for minion db1 deleted', 'Key for minion web1 deleted', 'Key for minion web2 deleted']);
  });
});

describe('salt-key when nothing matches', () => {
  it('names the glob and the states searched, exit 0', async () => {
    expect(await run({ accept: 'nosuch', yes: true })).toEqual({
      code: 0,
      out: "The key glob 'nosuch' does not match any unaccepted keys.\n",
      err: '',
      questions: [],
    });
    expect((await run({ accept: 'x', includeAll: true })).out).toBe("The key glob 'x' does not match any unaccepted or rejected keys.\n");
    expect((await run({ reject: 'x', includeAll: true, includeDenied: true })).out).toBe(
      "The key glob 'x' does not match any unaccepted, accepted or denied keys.\n",
    );
    await run({ acceptAll: true, yes: true });
    expect((await run({ acceptAll: true, yes: true })).out).toBe("The key glob '*' does not match any unaccepted keys.\n");
  });

  it('does not touch accepted keys on reject without --include-all', async () => {
    await run({ accept: 'web1', yes: true });
    expect((await run({ reject: 'web1', yes: true })).out).toBe("The key glob 'web1' does not match any unaccepted keys.\n");
    const r = await run({ reject: 'web1', yes: true, includeAll: true });
    expect(r.out).toBe('The following keys are going to be rejected:\nAccepted Keys:\nweb1\nKey for minion web1 rejected.\n');
    const back = await run({ accept: 'web1', yes: true, includeAll: true });
    expect(back.out).toBe('The following keys are going to be accepted:\nRejected Keys:\nweb1\nKey for minion web1 accepted.\n');
  });
});

describe('salt-key listing, printing and fingerprints', () => {
  it('lists one state with -l', async () => {
    expect((await run({ list: 'un' })).out).toBe('Unaccepted Keys:\ndb1\nweb1\nweb2\n');
    expect((await run({ list: 'acc' })).out).toBe('Accepted Keys:\n');
    expect((await run({ list: 'pre', out: 'json' })).out).toBe(
      '{\n    "minions_pre": [\n        "db1",\n        "web1",\n        "web2"\n    ]\n}\n',
    );
    expect((await run({ list: 'all' })).out).toBe(sample('salt-key -L (keys pending)'));
  });

  it("lists in Salt's colours when asked (what Salt 3007.10's key outputter printed with color on)", async () => {
    const salt =
      '\x1b[0;1;32mAccepted Keys:\x1b[0;0m\n\x1b[0;1;35mDenied Keys:\x1b[0;0m\n\x1b[0;1;31mUnaccepted Keys:\x1b[0;0m\n' +
      '\x1b[0;31mdb1\x1b[0;0m\n\x1b[0;31mweb1\x1b[0;0m\n\x1b[0;31mweb2\x1b[0;0m\n\x1b[0;1;34mRejected Keys:\x1b[0;0m\n';
    expect((await run({ list: 'all', color: true })).out).toBe(salt);
    expect(salt.replace(/\x1b\[[0-9;]*m/g, '')).toBe(sample('salt-key -L (keys pending)'));
    expect((await run({ print: 'web1', color: true })).out).toBe(
      `\x1b[0;1;31mUnaccepted Keys:\x1b[0;0m\n\x1b[0;31mweb1:  ${wirePub('web1')}\x1b[0;0m\n`,
    );
  });

  it('prints a key under its heading with -p, all with -P', async () => {
    const r = await run({ print: 'web1' });
    expect(r.out).toBe(`Unaccepted Keys:\nweb1:  ${wirePub('web1')}\n`);
    const all = await run({ printAll: true });
    expect(all.out).toBe(`Unaccepted Keys:\n${['db1', 'web1', 'web2'].map((id) => `${id}:  ${wirePub(id)}`).join('\n')}\n`);
    expect((await run({ print: 'nosuch' })).out).toBe('');
  });

  it('prints fingerprints with -f, local keys included when the glob matches them', async () => {
    const r = await run({ finger: 'web1' });
    expect(r.out).toBe(`Unaccepted Keys:\nweb1:  ${fingerprint(wirePub('web1'))}\n`);
    const m = await run({ finger: 'master.pub' });
    expect(m.out).toBe(`Local Keys:\nmaster.pub:  ${fingerprint(readFileSync(path.join(KEYS, 'master.pub')))}\n`);
    const md5 = await run({ finger: 'db1', hashType: 'md5' });
    expect(md5.out).toBe(`Unaccepted Keys:\ndb1:  ${fingerprint(wirePub('db1'), 'md5')}\n`);
  });

  it('gives -F as json with the local keys', async () => {
    const data = JSON.parse((await run({ fingerAll: true, out: 'json' })).out);
    expect(Object.keys(data)).toEqual(['minions_pre', 'local']);
    expect(data.local['master.pem']).toBe(fingerprint(readFileSync(path.join(KEYS, 'master.pem'))));
  });

  it('reports an invalid pending key on accept and accepts the rest', async () => {
    writeFileSync(path.join(dir, 'minions_pre', 'broken'), 'garbage');
    const r = await run({ acceptAll: true, yes: true });
    expect(r.err).toBe('Unable to accept invalid key for broken.\n');
    expect(r.out.endsWith('Key for minion db1 accepted.\nKey for minion web1 accepted.\nKey for minion web2 accepted.\n')).toBe(true);
    expect(store.list('pending')).toEqual(['broken']);
  });
});

describe('salt-key --gen-keys', () => {
  it('writes NAME.pem (0400) and NAME.pub and prints the fingerprint', async () => {
    const out = path.join(dir, 'gen');
    const r = await run({ genKeys: 'minion', genKeysDir: out });
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['minion.pem', 'minion.pub']);
    expect(statSync(path.join(out, 'minion.pem')).mode & 0o777).toBe(0o400);
    const pubText = readFileSync(path.join(out, 'minion.pub'), 'utf8');
    expect(pubText.startsWith('-----BEGIN PUBLIC KEY-----')).toBe(true);
    expect(r.out).toBe(`return:\n    ${fingerprint(pubText)}\n`);
    const again = await run({ genKeys: 'minion', genKeysDir: out, out: 'json' });
    expect(JSON.parse(again.out)).toEqual({ return: fingerprint(pubText) });
  });

  it('refuses key sizes outside 2048..32768 as a usage error', async () => {
    const small = await run({ genKeys: 'k', genKeysDir: dir, keysize: 1024 });
    expect(small).toEqual({ code: 64, out: '', err: 'salt-key: error: The minimum value for keysize is 2048\n', questions: [] });
    expect((await run({ genKeys: 'k', genKeysDir: dir, keysize: 65536 })).err).toBe(
      'salt-key: error: The maximum value for keysize is 32768\n',
    );
    expect((await run({ genKeys: '../k', genKeysDir: dir })).code).toBe(64);
  });

  it('refuses unknown -l names and outputters as usage errors', async () => {
    expect((await run({ list: 'bogus' as SaltKeyOptions['list'] })).code).toBe(64);
    expect((await run({ listAll: true, out: 'xml' })).code).toBe(64);
  });
});

describe('salt-key --gen-signature', () => {
  it('--auto-create makes master_sign.pem and writes master_pubkey_signature: base64 of its SHA-1 signature of the key the master sends', async () => {
    const r = await run({ genSignature: true, autoCreate: true });
    expect(r).toMatchObject({ code: 0, out: 'return:\n    True\n' });
    const text = readFileSync(path.join(dir, 'master_pubkey_signature'), 'utf8');
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*\n$/);
    // The key without its trailing newline, as `pub_key` carries it: what minions verify.
    const sent = Buffer.from(readFileSync(path.join(dir, 'master.pub'), 'utf8').trim(), 'utf8');
    const signPub = readFileSync(path.join(dir, 'master_sign.pub'), 'utf8');
    expect(verifyPkcs1v15(signPub, sent, Buffer.from(text, 'base64'), 'sha1')).toBe(true);
    // An existing signature is kept: Salt answers False.
    expect((await run({ genSignature: true })).out).toBe('return:\n    False\n');
    expect(readFileSync(path.join(dir, 'master_pubkey_signature'), 'utf8')).toBe(text);
  });

  it('--priv, --pub, --signature-path and the config names; says what is missing as Salt does', async () => {
    expect((await run({ genSignature: true })).out).toBe('return:\n    No usable private-key found\n');
    expect((await run({ genSignature: true, priv: path.join(dir, 'nope.pem') })).out).toBe(
      `return:\n    Private-key ${path.join(dir, 'nope.pem')} does not exist\n`,
    );
    expect((await run({ genSignature: true, pub: path.join(dir, 'nope.pub') })).out).toBe(
      `return:\n    Public-key ${path.join(dir, 'nope.pub')} does not exist\n`,
    );
    // --auto-create names the pair by master_sign_key_name.
    expect((await run({ genSignature: true, autoCreate: true, signKeyName: 'vouch', signatureFile: 'other' })).out).toBe(
      'return:\n    True\n',
    );
    expect(readdirSync(dir)).toEqual(expect.arrayContaining(['vouch.pem', 'vouch.pub', 'other']));
    const elsewhere = path.join(dir, 'signatures');
    expect((await run({ genSignature: true, autoCreate: true, signaturePath: elsewhere })).out).toBe(
      `return:\n    Signature path ${elsewhere} is not a directory\n`,
    );
    KeyStore.genKeys(dir, 'signer', 2048);
    mkdirSync(elsewhere);
    const r = await run({
      genSignature: true,
      priv: path.join(dir, 'signer.pem'),
      signaturePath: elsewhere,
      signatureFile: 'sig',
      out: 'json',
    });
    expect(JSON.parse(r.out)).toEqual({ return: true });
    const sent = Buffer.from(readFileSync(path.join(dir, 'master.pub'), 'utf8').trim(), 'utf8');
    const sig = Buffer.from(readFileSync(path.join(elsewhere, 'sig'), 'utf8'), 'base64');
    expect(verifyPkcs1v15(readFileSync(path.join(dir, 'signer.pub'), 'utf8'), sent, sig, 'sha1')).toBe(true);
  });
});

describe('salt-key with other outputters', () => {
  it('prints yaml and nested', async () => {
    expect((await run({ list: 'un', out: 'yaml' })).out).toBe('minions_pre:\n- db1\n- web1\n- web2\n');
    expect((await run({ list: 'acc', out: 'nested' })).out).toBe('minions:\n');
  });
});
