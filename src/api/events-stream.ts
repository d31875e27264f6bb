/**
 * GET /events: the master's event bus as server-sent events, as rest_cherrypy streams it:
 * `retry: 400`, then per event a `tag: <tag>` line and a `data: {"data": ..., "tag": ...}` line
 * and a blank line. The stream ends when the client goes away or its token expires.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formatJson } from '../core/pycompat';
import type { ApiDeps } from './server';

/** How often a quiet stream re-checks that its token is still live. */
const IDLE_CHECK_MS = 5000;

export async function streamEvents(req: FastifyRequest, reply: FastifyReply, deps: ApiDeps, tokenLive: () => boolean): Promise<void> {
  const listener = deps.events.listen();
  try {
    await listener.ready;
  } catch (err) {
    listener.close();
    throw err;
  }
  reply.hijack();
  const raw = reply.raw;
  const headers: Record<string, string | number | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) headers[k] = v as string | number | string[];
  raw.writeHead(200, {
    ...headers,
    'Content-Type': 'text/event-stream;charset=utf-8',
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
  });
  raw.write('retry: 400\n');
  let open = true;
  const stop = () => {
    open = false;
  };
  req.raw.on('close', stop);
  raw.on('close', stop);
  try {
    while (open) {
      const ev = await listener.next(IDLE_CHECK_MS);
      if (!open) break;
      if (!tokenLive()) {
        deps.log.debug('An event stream ended: its token is no longer valid');
        break;
      }
      if (!ev) continue;
      raw.write(`tag: ${ev.tag}\ndata: ${formatJson({ data: ev.data, tag: ev.tag }, null)}\n\n`);
    }
  } catch (err) {
    deps.log.error(`The event stream failed: ${(err as Error).message}`);
  } finally {
    listener.close();
    raw.end();
  }
}
