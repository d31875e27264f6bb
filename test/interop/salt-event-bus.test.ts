/**
 * Salt 3007.10's own tools on a brine master's event bus: `salt-run state.event` and `salt-run
 * event.send`, run on the master's host with the brine master's own configuration (so the same
 * sock_dir), as a Salt user would. The bus is Salt's framing on Salt's socket files
 * (src/core/transport/event-socket.ts). Every wait is on a line Salt prints or a command's answer.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listenToMaster } from '../../src/core/client/event-listener';
import { loadMasterConfig } from '../../src/core/config';
import { decode } from '../../src/core/protocol/msgpack';
import type { IEventSubscriber } from '../../src/core/transport/types';
import { Cluster } from '../support/cluster';
import { describeWithSalt, runSalt, saltEventStream, type SaltDaemon } from '../support/salt-ref';

describeWithSalt("Salt 3007's tools on a brine master's event bus", () => {
  let cluster: Cluster;
  let events: SaltDaemon | undefined;
  let listener: IEventSubscriber | undefined;

  beforeAll(async () => {
    cluster = await Cluster.create();
    await cluster.startMaster();
    await cluster.startAccepted([{ id: 'bm1' }]);
  }, 60_000);

  afterAll(async () => {
    listener?.close();
    await events?.stop();
    await cluster?.stop();
  });

  it("salt-run state.event hears a brine job's events, data and all", async () => {
    events = saltEventStream(cluster.masterDir);
    // Listening once a ping's return shows up on it (a retry on what is observed, not a clock).
    for (let i = 0; i < 20 && !/salt\/job\/\d+\/ret\/bm1/.test(events.log); i++) await cluster.salt('bm1', 'test.ping');
    await events.waitFor(/salt\/job\/\d+\/ret\/bm1\t.*\n/, 30_000);
    const line = events.log.split('\n').find((l) => /^salt\/job\/\d+\/ret\/bm1\t/.test(l))!;
    const data = JSON.parse(line.slice(line.indexOf('\t') + 1)) as Record<string, unknown>;
    expect(data).toMatchObject({ id: 'bm1', fun: 'test.ping', return: true, success: true, _stamp: expect.any(String) });
    // The job's publication event too: every tag reaches a listener that subscribes to nothing.
    // Of a job published now that it surely listens (the first ping it heard may have been
    // published just before it connected).
    const shown = await cluster.salt('bm1', 'test.ping', '--show-jid');
    const jid = /^jid: (\d+)$/m.exec(shown.stdout)?.[1];
    expect(jid, shown.stdout).toBeDefined();
    await events.waitFor(new RegExp(`salt/job/${jid}/ret/bm1\t`), 30_000);
    expect(events.log).toMatch(new RegExp(`salt/job/${jid!}/new\t.*"fun": "test\\.ping"`));
  });

  it("salt-run event.send reaches the bus through the master's event intake", async () => {
    listener = listenToMaster(loadMasterConfig(cluster.masterDir).config.sock_dir, ['interop/']);
    await listener.sync(5000);
    const sent = await runSalt('salt-run', cluster.masterDir, ['event.send', 'interop/from-salt', 'data={"answer": 42}']);
    expect(sent, sent.stderr).toMatchObject({ code: 0 });
    const event = await listener.next(30_000);
    expect(event?.tag).toBe('interop/from-salt');
    expect(decode(event!.body)).toMatchObject({ answer: 42, _stamp: expect.any(String) });
  });
});
