/**
 * salt-api's latency against the in-run baselines, on a running master with N minions:
 *
 * - `POST /` with `client: local, fun: test.ping, tgt: '*'`, timed from the request to the parsed
 *   answer holding all N returns; compared with the CLI client's own time for the same job.
 * - `/events`: an event pushed into the master's bus is read by a direct bus listener (the
 *   baseline) and by an `/events` stream; the figure is how much later the stream has it.
 *
 * salt-api runs in the bench's process; the CLI's client runs in its own process, as the salt
 * CLI does.
 */
import { ApiDaemon } from '../src/api/api-daemon';
import { MasterEventBus } from '../src/api/event-bus';
import { freePort } from '../scripts/cluster';
import { loadMasterConfig } from '../src/core/config';
import { listenToMaster } from '../src/core/client/event-listener';
import { summarize, type Summary } from './report';

export interface ApiBenchResult {
  minions: number;
  /** POST / local test.ping to '*', ms until all returns are in the answer. */
  postMs: Summary;
  /** How much later an /events stream delivers an event than a direct bus listener, ms. */
  eventDelayMs: Summary;
}

const quiet = { debug: () => undefined, info: () => undefined, warning: () => undefined, error: () => undefined };

export async function runApiBench(masterDir: string, count: number, rounds: number): Promise<ApiBenchResult> {
  const port = await freePort();
  const { config } = loadMasterConfig(masterDir);
  config.rest_cherrypy = { port, host: '127.0.0.1', disable_ssl: true };
  config.external_auth = { auto: { '*': ['.*'] } };
  config.netapi_enable_clients = ['local'];
  const api = new ApiDaemon(config, quiet);
  await api.start();
  const url = `http://127.0.0.1:${port}`;
  const bus = new MasterEventBus(String(config.sock_dir));
  await bus.open();
  const direct = listenToMaster(String(config.sock_dir), ['bench/api/']);
  const stream = new AbortController();
  try {
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'bench', password: 'x', eauth: 'auto' }),
    });
    const token = login.headers.get('x-auth-token');
    if (login.status !== 200 || !token) throw new Error(`salt-api login failed: ${login.status}`);

    const ping = async (): Promise<number> => {
      const t0 = performance.now();
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Auth-Token': token },
        body: '[{"client": "local", "tgt": "*", "fun": "test.ping"}]',
      });
      const body = (await res.json()) as { return: Array<Record<string, unknown>> };
      const ms = performance.now() - t0;
      const got = Object.keys(body.return[0] ?? {}).length;
      if (got !== count) throw new Error(`POST / answered ${got} of ${count} minions`);
      return ms;
    };
    await ping(); // warm-up
    const post: number[] = [];
    for (let r = 0; r < rounds; r++) post.push(await ping());

    // One /events stream; each event's arrival there is matched with the direct listener's.
    await direct.sync(5000);
    const res = await fetch(`${url}/events?token=${token}`, { signal: stream.signal });
    if (!res.body) throw new Error('/events gave no stream');
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const seenInStream = async (tag: string): Promise<number> => {
      for (;;) {
        if (text.includes(`tag: ${tag}\n`)) return performance.now();
        const { value, done } = await reader.read();
        if (done) throw new Error('/events ended');
        text += decoder.decode(value, { stream: true });
      }
    };
    const seenDirect = async (tag: string): Promise<number> => {
      for (;;) {
        const ev = await direct.next(5000);
        if (!ev) throw new Error(`the bus did not deliver ${tag}`);
        if (ev.tag === tag) return performance.now();
      }
    };
    // The stream subscribes after its first request: a first event proves it is live.
    const delays: number[] = [];
    for (let r = -1; r < Math.max(rounds, 5); r++) {
      const tag = `bench/api/${r + 1}`;
      const both = Promise.all([seenDirect(tag), seenInStream(tag)]);
      await bus.fire(tag, { round: r });
      const [atBus, atStream] = await both;
      if (r >= 0) delays.push(Math.max(0, atStream - atBus));
    }
    return { minions: count, postMs: summarize(post), eventDelayMs: summarize(delays) };
  } finally {
    stream.abort();
    direct.close();
    await bus.close();
    await api.stop();
  }
}
