/**
 * The first hour of a Salt user, on brine's real binaries: keys pending, accepted, deleted and
 * rejected; jobs, outputters and exit codes as Salt prints them; a dead minion; garbage on the
 * request port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from 'node:net';
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import * as zmq from 'zeromq';
import { Cluster, freePort } from '../support/cluster';
import { decode, encode } from '../../src/core/protocol/msgpack';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.create();
  await cluster.startMaster();
  await cluster.startAccepted([
    { id: 'web1', grains: { role: 'web' } },
    { id: 'web2', grains: { role: 'web' } },
    { id: 'db1', grains: { role: 'db' } },
  ]);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
});

async function rawRequest(port: number, payload: Buffer): Promise<unknown> {
  const sock = new zmq.Request({ linger: 0, receiveTimeout: 5000 });
  sock.connect(`tcp://127.0.0.1:${port}`);
  try {
    await sock.send(payload);
    const [reply] = await sock.receive();
    return decode(reply);
  } finally {
    sock.close();
  }
}

describe('salt and salt-key end to end', () => {
  it('runs test.ping on every accepted minion and stops waiting as soon as all returned', async () => {
    const started = Date.now();
    const res = await cluster.salt('*', 'test.ping');
    expect(res.code).toBe(0);
    expect(res.stderr).toBe('');
    const blocks = res.stdout.split(/(?=^\S)/m).sort();
    expect(blocks).toEqual(['db1:\n    True\n', 'web1:\n    True\n', 'web2:\n    True\n']);
    // timeout is 5 s; the CLI must not sit it out when every expected minion has answered.
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('targets globs and lists, and passes arguments and keyword arguments as Salt does', async () => {
    const echo = await cluster.salt('web*', 'test.echo', 'hello');
    expect(echo.stdout.split(/(?=^\S)/m).sort()).toEqual(['web1:\n    hello\n', 'web2:\n    hello\n']);
    const list = await cluster.salt('-L', 'web1,db1', 'test.ping', '--out', 'json', '--static');
    expect(JSON.parse(list.stdout)).toEqual({ web1: true, db1: true });
    const arg = await cluster.salt('db1', 'test.arg', '1', 'two', 'foo=bar', '--out', 'json');
    const ret = JSON.parse(arg.stdout).db1;
    expect(ret.args).toEqual([1, 'two']);
    expect(ret.kwargs.foo).toBe('bar');
    expect(ret.kwargs.__pub_arg).toEqual([1, 'two', { __kwarg__: true, foo: 'bar' }]);
    expect(ret.kwargs.__pub_tgt).toBe('db1');
  });

  it('prints every outputter as Salt does', async () => {
    expect((await cluster.salt('web1', 'test.ping', '--out', 'json')).stdout).toBe('{\n    "web1": true\n}\n');
    expect((await cluster.salt('web1', 'test.ping', '--out', 'yaml')).stdout).toBe('web1: true\n');
    expect((await cluster.salt('web1', 'test.ping', '--out', 'txt')).stdout).toBe('web1: True\n');
    expect((await cluster.salt('web1', 'test.ping', '--out', 'raw')).stdout).toBe("{'web1': True}\n");
    expect((await cluster.salt('web2', 'test.echo', 'hello world', '--out', 'yaml')).stdout).toBe('web2: hello world\n');
    expect((await cluster.salt('db1', 'cmd.run', 'printf "a\\nb\\nc"')).stdout).toBe('db1:\n    a\n    b\n    c\n');
  });

  it("exits 1 with Salt's line when a minion returns a non-zero retcode", async () => {
    const res = await cluster.salt('web1', 'cmd.run', 'echo out; echo err >&2; exit 3');
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('web1:\n    out\n    err\n');
    expect(res.stderr).toBe('ERROR: Minions returned with non-zero exit code\n');
    const json = await cluster.salt('web1', 'cmd.run', 'exit 3', '--out', 'json');
    expect(json.stdout).toBe('{\n    "web1": ""\n}\n');
    expect(json.code).toBe(1);
  });

  it("exits 2 with Salt's two lines when no minion matches", async () => {
    const res = await cluster.salt('nosuch*', 'test.ping');
    expect(res.code).toBe(2);
    expect(res.stdout).toBe('No minions matched the target. No command was sent, no jid was assigned.\n');
    expect(res.stderr).toBe('ERROR: No return received\n');
  });

  it('--async prints the jid and returns at once', async () => {
    const res = await cluster.salt('web1', 'test.sleep', '3', '--async');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Executed command with job ID: \d{20}\n$/);
  });

  it('salt-call --local runs here; without --local the return also reaches the master', async () => {
    const local = await cluster.run('salt-call', ['--local', 'test.ping'], cluster.minionDir('web1'));
    expect(local).toMatchObject({ code: 0, stdout: 'local:\n    True\n' });
    const json = await cluster.run('salt-call', ['--local', 'test.ping', '--out', 'json'], cluster.minionDir('web1'));
    expect(json.stdout).toBe('{\n    "local": true\n}\n');
    const before = cluster.master!.count('Got return from web1 for job');
    const remote = await cluster.run('salt-call', ['test.echo', 'hi'], cluster.minionDir('web1'));
    expect(remote).toMatchObject({ code: 0, stdout: 'local:\n    hi\n' });
    // Stored under a jid of its own, as Salt's store_job gives a salt-call return: jobs.list_jobs shows it.
    await cluster.master!.waitFor(new RegExp(`(Got return from web1 for job \\d{20}[\\s\\S]*){${before + 1}}`));
    const jobs = await cluster.run('salt-run', ['jobs.list_jobs', '--out', 'json']);
    expect(Object.values(JSON.parse(jobs.stdout) as Record<string, { Function: string; Target: string }>)).toContainEqual(
      expect.objectContaining({ Function: 'test.echo', Target: 'web1' }),
    );
  });

  it("refuses the CLI without the master's root key, in one line", async () => {
    const other = join(cluster.root, 'nokey', 'etc', 'salt');
    mkdirSync(other, { recursive: true });
    writeFileSync(
      join(other, 'master'),
      stringify({ root_dir: join(cluster.root, 'nokey'), interface: '127.0.0.1', ret_port: cluster.retPort }),
    );
    const res = await cluster.run('salt', ['*', 'test.ping'], other);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/^ERROR: cannot read the master's root key .*\.root_key \(no such file\)\n/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
  });

  it('answers garbage, truncated and forged requests with "bad load" and keeps serving', async () => {
    const port = cluster.retPort;
    expect(await rawRequest(port, Buffer.from([0xc1, 0xff, 0x00]))).toBe('bad load');
    const valid = encode({ enc: 'clear', load: { cmd: '_auth', id: 'x' }, version: 3 });
    expect(await rawRequest(port, valid.subarray(0, valid.length - 3))).toBe('bad load');
    expect(
      await rawRequest(
        port,
        encode({ enc: 'aes', load: Buffer.alloc(80, 7), version: 3, id: 'web1', enc_algo: 'OAEP-SHA1', sig_algo: 'PKCS1v15-SHA1' }),
      ),
    ).toBe('bad load');
    expect(
      await rawRequest(
        port,
        encode({ enc: 'aes', load: Buffer.alloc(80, 7), version: 3, id: '../../etc', enc_algo: 'OAEP-SHA1', sig_algo: 'PKCS1v15-SHA1' }),
      ),
    ).toBe('bad load');
    expect(
      await rawRequest(
        port,
        encode({
          enc: 'clear',
          load: { cmd: '_auth', id: '../evil', nonce: 'a'.repeat(32), enc_algo: 'OAEP-SHA1', sig_algo: 'PKCS1v15-SHA1', pub: 'nope' },
          version: 3,
        }),
      ),
    ).toBe('bad load');
    expect(
      await rawRequest(
        port,
        encode({
          enc: 'clear',
          load: {
            cmd: 'publish',
            tgt: '*',
            fun: 'test.ping',
            arg: [],
            key: 'wrong',
            tgt_type: 'glob',
            ret: '',
            jid: '',
            kwargs: {},
            user: 'root',
          },
          version: 3,
        }),
      ),
    ).toMatchObject({ error: { name: 'AuthenticationError' } });
    // Bytes that are not even ZMTP, then a hang-up: the master is not disturbed.
    await new Promise<void>((resolve) => {
      const s = createConnection(port, '127.0.0.1', () => s.write(Buffer.from('GET / HTTP/1.0\r\n\r\n\xff\x00'), () => s.destroy()));
      s.on('close', () => resolve());
    });
    const res = await cluster.salt('web1', 'test.ping');
    expect(res).toMatchObject({ code: 0, stdout: 'web1:\n    True\n' });
  });
});

describe('key life cycle', () => {
  it('gives a pending minion no jobs', async () => {
    const late = await cluster.startMinion({ id: 'late1' }, 'cached the public key');
    const res = await cluster.salt('*', 'test.ping');
    expect(res.stdout).not.toContain('late1');
    expect(late.log).not.toContain('Executing command');
    const keys = await cluster.saltKey('-L');
    expect(keys.stdout).toContain('Unaccepted Keys:\nlate1\n');
    await late.stop();
    expect((await cluster.saltKey('-d', 'late1', '-y')).stdout).toContain('Key for minion late1 deleted.');
  });

  it('after salt-key -d the minion cannot read the next job and is back in pending', async () => {
    const web2 = cluster.minions.get('web2')!;
    const del = await cluster.saltKey('-d', 'web2', '-y');
    expect(del.stdout).toBe('The following keys are going to be deleted:\nAccepted Keys:\nweb2\nKey for minion web2 deleted.\n');
    const res = await cluster.salt('*', 'test.ping');
    expect(res.stdout.split(/(?=^\S)/m).sort()).toEqual(['db1:\n    True\n', 'web1:\n    True\n']);
    await web2.waitFor('signing in again for the new key');
    await web2.waitFor(/signing in again for the new key[\s\S]*cached the public key/);
    const keys = await cluster.saltKey('-L');
    expect(keys.stdout).toBe('Accepted Keys:\ndb1\nweb1\nDenied Keys:\nUnaccepted Keys:\nweb2\nRejected Keys:\n');
  });

  it("after salt-key -r the minion logs Salt's CRITICAL line and exits 77", async () => {
    const web2 = cluster.minions.get('web2')!;
    const rej = await cluster.saltKey('-r', 'web2', '-y');
    expect(rej.stdout).toBe('The following keys are going to be rejected:\nUnaccepted Keys:\nweb2\nKey for minion web2 rejected.\n');
    expect(await web2.exited).toBe(77);
    expect(web2.log).toContain(
      "[CRITICAL] The Salt Master has rejected this minion's public key!\n" +
        'To repair this issue, delete the public key for this minion on the Salt Master and restart this minion.\n' +
        'Or restart the Salt Master in open mode to clean out the keys. The Salt Minion will now exit.',
    );
  });

  it('reports a killed minion as "Minion did not return"', async () => {
    const db1 = cluster.minions.get('db1')!;
    await db1.stop('SIGKILL');
    const res = await cluster.salt('-t', '1', '*', 'test.ping');
    expect(res.code).toBe(1);
    expect(res.stdout).toContain('web1:\n    True\n');
    expect(res.stdout).toMatch(
      /db1:\n    Minion did not return\. \[No response\]\n    The minions may not have all finished running and any remaining minions will return upon completion\. To look up the return data for this job later, run the following command:\n    \n    salt-run jobs\.lookup_jid \d{20}\n/,
    );
    expect(res.stderr).toBe('ERROR: Minions returned with non-zero exit code\n');
  });
});

describe('daemon life', () => {
  it('salt-master -d returns once the daemon listens, writes a pid file, and stops on SIGTERM', async () => {
    const root = join(cluster.root, 'bg');
    const conf = join(root, 'etc', 'salt');
    mkdirSync(conf, { recursive: true });
    writeFileSync(
      join(conf, 'master'),
      stringify({
        root_dir: root,
        interface: '127.0.0.1',
        publish_port: await freePort(),
        ret_port: await freePort(),
        keysize: 1024,
        log_level_logfile: 'info',
        // Salt's layout options, in the file the daemon writes.
        log_fmt_logfile: '%(asctime)s %(bracketlevel)s %(message)s',
        log_datefmt_logfile: '%Y-%m-%dT%H:%M:%S',
      }),
    );
    const res = await cluster.run('salt-master', ['-d'], conf);
    expect(res.code).toBe(0);
    const runDir = join(root, 'var', 'run');
    const pidFile = join(runDir, 'salt-master.pid');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(res.stdout).toBe(`salt-master started in the background, pid ${pid}\n`);
    const gone = new Promise<void>((resolve) => {
      const w = watch(runDir, () => {
        if (!existsSync(pidFile)) {
          w.close();
          resolve();
        }
      });
    });
    process.kill(pid, 'SIGTERM');
    await gone;
    expect(readFileSync(join(root, 'var', 'log', 'salt', 'master'), 'utf8')).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d \[INFO    \] Shutting down the Salt Master$/m,
    );
  });
});
