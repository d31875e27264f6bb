/**
 * The built-in returners (local_cache, syslog) and a third-party returner package, through the
 * minion's PluginRuntime as `--return` reaches them; the master's event_return (EventReturns).
 * pgjsonb is tested against a real PostgreSQL in test/core/master/job-cache/postgres-cache.test.ts.
 */
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryGrains } from 'brine/testing';
import { BUILTIN_PLUGINS, BUILTIN_RETURNERS } from '../../plugins';
import { SqliteJobCache } from '../../src/core/master/job-cache';
import { EventReturns } from '../../src/plugins/event-returns';
import { PluginRuntime } from '../../src/plugins/runtime';
import { StaticConfig } from '../../src/plugins/services/config';
import { StreamLogger } from '../../src/plugins/services/logger';
import { fixture } from './fixtures';

let root: string;
let udp: Socket;
let port: number;
const datagrams: string[] = [];
let arrived: (() => void) | undefined;
const errors: string[] = [];
const logger = new StreamLogger('error', (line) => errors.push(line));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'brine-returners-'));
  // The syslog returner's destination: a UDP syslog server of this test's own.
  udp = createSocket('udp4');
  udp.on('message', (msg) => {
    datagrams.push(msg.toString());
    arrived?.();
  });
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  port = udp.address().port;
});

afterAll(() => {
  udp.close();
  rmSync(root, { recursive: true, force: true });
});

function nextDatagram(): Promise<string> {
  const seen = datagrams.length;
  return new Promise((resolve) => {
    const check = () => {
      if (datagrams.length > seen) resolve(datagrams[seen]);
    };
    arrived = check;
    check();
  });
}

async function minionRuntime(config: Record<string, unknown>): Promise<PluginRuntime> {
  return PluginRuntime.start({
    config: new StaticConfig({ id: 'web1', cachedir: join(root, 'cache'), ...config }),
    grains: new MemoryGrains({ kernel: 'Linux' }),
    logger,
    builtins: BUILTIN_PLUGINS,
    npm: { nodeModules: [fixture('returner-packages')] },
  });
}

const JID = '20261203120000123456';
const job = (ret: string) => ({ fun: 'test.echo', arg: ['hi'], jid: JID, ret });
const result = { return: 'hi', retcode: 0, success: true };

describe('built-in returners through --return', () => {
  it('syslog: the return as Python json.dumps, user.info, tag salt-minion, through logger to a syslog server', async () => {
    const runtime = await minionRuntime({ 'syslog.server': '127.0.0.1', 'syslog.port': port });
    const got = nextDatagram();
    await runtime.sendToReturners(job('syslog'), result);
    // RFC 3164: <PRI> (user=1 * 8 + info=6 = 14), time stamp, host, tag, then Salt's message.
    expect(await got).toMatch(
      /^<14>\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ salt-minion: \{"id": "web1", "jid": "20261203120000123456", "fun": "test.echo", "fun_args": \["hi"\], "return": "hi", "retcode": 0, "success": true\}$/,
    );
    expect(errors).toEqual([]);
  });

  it('syslog: Salt options level, facility, tag and LOG_PID; a bad level is an error in the log, naming it', async () => {
    const runtime = await minionRuntime({
      'syslog.server': '127.0.0.1',
      'syslog.port': port,
      'syslog.level': 'LOG_WARNING',
      'syslog.facility': 'LOG_LOCAL3',
      'syslog.tag': 'brine-test',
      'syslog.options': ['LOG_PID'],
    });
    const got = nextDatagram();
    await runtime.sendToReturners(job('syslog'), result);
    // local3 = 19: 19 * 8 + warning 4 = 156.
    expect(await got).toMatch(new RegExp(`^<156>.* brine-test\\[${process.pid}\\]: \\{"id": "web1"`));
    const bad = await minionRuntime({ 'syslog.server': '127.0.0.1', 'syslog.port': port, 'syslog.level': 'LOG_LOUD' });
    await bad.sendToReturners(job('syslog'), result);
    expect(errors.splice(0)).toEqual([expect.stringContaining('syslog.level: "LOG_LOUD" is not a syslog name; use one of LOG_EMERG')]);
  });

  it("local_cache: the minion's own job cache in its cachedir, read back by get_jid", async () => {
    const runtime = await minionRuntime({});
    await runtime.sendToReturners(job('local_cache'), result);
    const read = (fun: string) => runtime.invoke('returner', fun, { arg: [JID] }, { fun, jid: 'req' });
    expect(await read('local_cache.get_jid')).toEqual({ web1: { return: 'hi' } });
    await runtime.invoke(
      'returner',
      'local_cache.save_load',
      { arg: [JID, { tgt: 'web*', fun: 'test.echo', arg: ['hi'] }, ['web1']] },
      job(''),
    );
    expect(await read('local_cache.get_load')).toEqual({
      jid: JID,
      tgt: 'web*',
      tgt_type: 'glob',
      fun: 'test.echo',
      arg: ['hi'],
      user: 'root',
      Minions: ['web1'],
    });
    // The store is brine's job cache file, as the master's local_cache.
    const cache = new SqliteJobCache(join(root, 'cache', 'job-cache.sqlite3'));
    expect(Object.keys(cache.getReturns(JID))).toEqual(['web1']);
    cache.close();
  });

  it('a third-party returner package (brine-plugin-memo) loads and receives the return, beside a built-in one', async () => {
    const out = join(root, 'memo.jsonl');
    const runtime = await minionRuntime({ 'memo.file': out, return: 'memo' });
    expect(runtime.plugins.registry.module('memo', 'returner')?.origin).toBe('npm:brine-plugin-memo');
    await runtime.sendToReturners(job('local_cache'), result);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({
      kind: 'return',
      ret: { id: 'web1', jid: JID, fun: 'test.echo', fun_args: ['hi'], return: 'hi', retcode: 0, success: true },
    });
    expect(errors).toEqual([]);
  });
});

describe("the master's event_return", () => {
  it('hands the events, filtered and queued as Salt does, to event_return(events) of each named returner', async () => {
    const out = join(root, 'events.jsonl');
    const returns = await EventReturns.start({
      config: {
        cachedir: join(root, 'master-cache'),
        'memo.file': out,
        event_return: ['memo', 'nosuch'],
        event_return_queue: 2,
        event_return_blacklist: ['salt/auth'],
        plugin_dirs: [fixture('returner-packages')],
      },
      logger,
      builtins: BUILTIN_RETURNERS,
    });
    expect(errors.splice(0)).toEqual([expect.stringContaining("Could not store events - returner 'nosuch' raised exception")]);
    returns!.push('salt/auth', { id: 'web1' });
    returns!.push('salt/job/1/new', { jid: '1' });
    returns!.push('salt/job/1/ret/web1', { jid: '1', return: true });
    returns!.push('salt/key', { id: 'web2' });
    await returns!.stop();
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      {
        kind: 'events',
        events: [
          { tag: 'salt/job/1/new', data: { jid: '1' } },
          { tag: 'salt/job/1/ret/web1', data: { jid: '1', return: true } },
        ],
      },
      { kind: 'events', events: [{ tag: 'salt/key', data: { id: 'web2' } }] },
    ]);
    expect(await EventReturns.start({ config: { event_return: '' }, logger, builtins: BUILTIN_RETURNERS })).toBeUndefined();
  });
});
