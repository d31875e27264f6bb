/**
 * The failures seen in the field, reproduced on the real binaries: many hosts sharing one cached
 * id, a master restarted with kill -9 in the middle of a job, a master whose key changed, autosign.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Cluster } from '../support/cluster';
import { fingerprint, generateKeyPair } from '../../src/core/crypto/rsa';

let cluster: Cluster | undefined;

afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

describe('one cached id on several hosts (the 20-server failure)', () => {
  it('accepts the first key, denies the others, and each denied minion says why and how to fix it', async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    const hosts = ['host1', 'host2', 'host3'];
    for (const name of hosts) {
      mkdirSync(cluster.minionDir(name), { recursive: true });
      writeFileSync(join(cluster.minionDir(name), 'minion_id'), 'localhost.localdomain\n');
    }
    const spec = (name: string) => ({ id: 'localhost.localdomain', name, config: { id: null } });
    const first = await cluster.startMinion(spec('host1'), 'cached the public key');
    expect(first.log).toMatch(/\[WARNING \].*localhost\.localdomain/);
    await cluster.saltKey('-a', 'localhost.localdomain', '-y');
    await first.waitFor('is ready');

    const others = await Promise.all(hosts.slice(1).map((h) => cluster!.startMinion(spec(h), "rejected this minion's public key")));
    for (const m of others) {
      expect(await m.exited).toBe(77);
      expect(m.log).toContain("[CRITICAL] The Salt Master has rejected this minion's public key!");
      expect(m.log).toContain(`another machine already uses this id`);
      expect(m.log).toContain(`delete ${join(cluster.minionDir(m.name), 'minion_id')}`);
    }
    await cluster.master!.waitFor(/failed, the public keys did not match[\s\S]*Known key [0-9a-f:]+, offered key [0-9a-f:]+/);
    const keys = await cluster.saltKey('-L');
    expect(keys.stdout).toBe(
      'Accepted Keys:\nlocalhost.localdomain\nDenied Keys:\nlocalhost.localdomain\nUnaccepted Keys:\nRejected Keys:\n',
    );
    const ping = await cluster.salt('*', 'test.ping');
    expect(ping.stdout).toBe('localhost.localdomain:\n    True\n');
  });
});

describe('connection life', () => {
  it('survives a master killed with -9 mid-job: the held-back return arrives, and jobs run again', async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'web1', config: { return_retry_timer: 1, return_retry_tries: 10 } }]);
    const started = await cluster.salt('web1', 'test.sleep', '2', '--async');
    const jid = /job ID: (\d{20})/.exec(started.stdout)![1];
    const web1 = cluster.minions.get('web1')!;
    await web1.waitFor(`Executing command test.sleep with jid ${jid}`);
    const master = await cluster.restartMaster();
    await master.waitFor(`Got return from web1 for job ${jid}`, 30_000);
    // The return can arrive (the master kept the session) before the minion's subscription is
    // back; a job published before that would not reach it, as with Salt. Wait until it is.
    await web1.waitFor(/publisher is back[\s\S]*Authentication with master successful/, 30_000);
    const ping = await cluster.salt('web1', 'test.ping');
    expect(ping).toMatchObject({ code: 0, stdout: 'web1:\n    True\n' });
  });

  it('refuses a master that presents another key than the cached one', async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'web1' }]);
    await cluster.master!.stop();
    const pki = join(cluster.root, 'master', 'etc', 'salt', 'pki', 'master');
    rmSync(join(pki, 'master.pem'));
    rmSync(join(pki, 'master.pub'));
    await cluster.startMaster();
    const res = await cluster.salt('-t', '2', 'web1', 'test.ping');
    expect(res.stdout).toContain('Minion did not return');
    const web1 = cluster.minions.get('web1')!;
    expect(await web1.exited).toBe(1);
    expect(web1.log).toMatch(
      /\[CRITICAL\] The master key has changed, the salt master could have been subverted, verify salt master's public key\. This minion trusts the key in .*minion_master\.pub \([0-9a-f:]+\); the master at 127\.0\.0\.1:\d+ presents [0-9a-f:]+\./,
    );
    // salt waits its timeout plus gather_job_timeout (10 s) before the minion's exit is read.
  }, 90_000);

  it('accepts the ids that autosign_file names and rejects those autoreject_file names, which wins', async () => {
    cluster = await Cluster.create({ autosign_file: '/autosign.conf', autoreject_file: '/autoreject.conf' });
    writeFileSync(join(cluster.root, 'master', 'autosign.conf'), '# trusted hosts\nauto*\n');
    writeFileSync(join(cluster.root, 'master', 'autoreject.conf'), '# retired hosts\nauto2\n');
    await cluster.startMaster();
    await cluster.startMinion({ id: 'auto1' }, 'is ready');
    await cluster.startMinion({ id: 'manual1' }, 'cached the public key');
    const refused = await cluster.startMinion({ id: 'auto2' }, "The Salt Master has rejected this minion's public key!");
    expect(await refused.exited).not.toBe(0);
    await cluster.master!.waitFor('New public key for auto2 rejected via autoreject_file');
    const keys = await cluster.saltKey('-L');
    expect(keys.stdout).toBe('Accepted Keys:\nauto1\nDenied Keys:\nUnaccepted Keys:\nmanual1\nRejected Keys:\nauto2\n');
  });

  it('master_finger pins the master key before first contact', async () => {
    cluster = await Cluster.create({ auto_accept: true });
    await cluster.startMaster();
    const pub = readFileSync(join(cluster.root, 'master', 'etc', 'salt', 'pki', 'master', 'master.pub'), 'utf8');
    const good = await cluster.startMinion({ id: 'pinned', config: { master_finger: fingerprint(pub) } }, 'is ready');
    expect(good.log).not.toContain('CRITICAL');
    const wrong = '00:'.repeat(31) + '00';
    const bad = await cluster.startMinion({ id: 'mispinned', config: { master_finger: wrong } }, 'does not match');
    expect(await bad.exited).toBe(1);
    expect(bad.log).toContain(
      `[CRITICAL] The specified fingerprint in the master configuration file (master_finger ${wrong}) does not match the master's key (${fingerprint(pub)})`,
    );
  });

  it('open_mode accepts every key, even one the master had rejected', async () => {
    cluster = await Cluster.create({ open_mode: true });
    const pki = join(cluster.root, 'master', 'etc', 'salt', 'pki', 'master');
    const rejected = join(pki, 'minions_rejected');
    mkdirSync(rejected, { recursive: true });
    // The master refuses a pki dir others can read (permissive_pki_access is off).
    chmodSync(pki, 0o700);
    writeFileSync(join(rejected, 'reborn'), generateKeyPair(1024).publicPem);
    await cluster.startMaster();
    await cluster.startMinion({ id: 'reborn' }, 'is ready');
    const keys = await cluster.saltKey('-L');
    expect(keys.stdout).toBe('Accepted Keys:\nreborn\nDenied Keys:\nUnaccepted Keys:\nRejected Keys:\n');
    expect((await cluster.salt('reborn', 'test.ping')).stdout).toBe('reborn:\n    True\n');
  });
});

/** util-linux's prlimit lowers a running daemon's own limit: a real limit, not a simulated one. */
const PRLIMIT = '/usr/bin/prlimit';

describe.skipIf(!existsSync(PRLIMIT))('a master near its open files limit (the 10,000-minion failure)', () => {
  // At the limit a Node port refuses connections without a word (libuv closes them for it), and
  // minions retry for ever: the master must say so while there is room, for each of its ports.
  it('warns for each port, with what to do, once, and serves again once the limit is raised', { timeout: 120_000 }, async () => {
    cluster = await Cluster.create();
    const master = await cluster.startMaster();
    const pid = master.child.pid!;
    // Its one child is the publish port's process.
    const publisher = Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim());
    const openFiles = (p: number) => readdirSync(`/proc/${p}/fd`).length;
    const softLimit = (p: number) => Number(/^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${p}/limits`, 'utf8'))![1]);
    // The soft limit only: the hard one cannot be raised again without privilege.
    const limit = (p: number, n: number) => execFileSync(PRLIMIT, ['--pid', String(p), `--nofile=${n}:`]);
    const before = softLimit(pid);
    limit(pid, openFiles(pid) + 4);
    limit(publisher, openFiles(publisher) + 4);
    const sockets: Socket[] = [];
    try {
      for (const port of [cluster.retPort, cluster.publishPort]) {
        for (let i = 0; i < 8; i++) sockets.push(connect(port, '127.0.0.1').on('error', () => undefined));
      }
      await master.waitFor(/open files are in use, \d+ of them connections for requests on tcp:\/\/127\.0\.0\.1:\d+: at the limit/);
      await master.waitFor(/open files are in use, \d+ of them connections for subscribers on tcp:\/\/127\.0\.0\.1:\d+: at the limit/);
      expect(master.log).toMatch(/WARNING.*raise the process's open files limit \(ulimit -n, systemd LimitNOFILE=\)/);
      // Once, not once per connection.
      expect(master.count('connections for requests on')).toBe(1);
    } finally {
      for (const s of sockets) s.destroy();
      limit(pid, before);
      limit(publisher, before);
    }
    await cluster.startAccepted([{ id: 'web1' }]);
    const ping = await cluster.salt('web1', 'test.ping');
    expect(ping.stdout).toBe('web1:\n    True\n');
  });
});
