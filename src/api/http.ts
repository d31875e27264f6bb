/**
 * How salt-api answers, as rest_cherrypy does: JSON or YAML chosen by `Accept` (406 for
 * anything else), CherryPy's HTML error pages, the CORS headers on every response, and the
 * `session_id` cookie of CherryPy's session tool.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { formatJson } from '../core/pycompat';
import { formatYaml } from '../core/pycompat';
import { errorPage, HttpError } from './http-error';

export const OUTPUT_TYPES = ['application/json', 'application/x-yaml'] as const;

/** Cookie lifetime of a session (CherryPy's tools.sessions.timeout of 600 minutes). */
export const SESSION_MAX_AGE = 36000;

/** The media type to answer in, or a 406 naming what salt-api can emit. */
export function outputType(req: FastifyRequest): (typeof OUTPUT_TYPES)[number] {
  const accept = req.headers.accept;
  const chosen = new Negotiator({ headers: { accept: accept === undefined || accept === '' ? '*/*' : accept } }).mediaType([
    ...OUTPUT_TYPES,
  ]);
  if (!chosen) {
    throw new HttpError(
      406,
      `Your client sent this Accept header: ${String(accept)}. But this resource only emits these media types: ${OUTPUT_TYPES.join(', ')}.`,
    );
  }
  return chosen as (typeof OUTPUT_TYPES)[number];
}

/** Python's json.dumps (", " and ": ") or PyYAML's safe_dump(default_flow_style=False). */
export function serialize(type: (typeof OUTPUT_TYPES)[number], data: unknown): string {
  return type === 'application/json' ? formatJson(data, null) : formatYaml(data);
}

/** Sends data in the negotiated format. */
export function sendData(req: FastifyRequest, reply: FastifyReply, data: unknown, status = 200): FastifyReply {
  const type = outputType(req);
  // A Buffer, so that Fastify adds no charset: salt-api's JSON is plain `application/json`.
  return reply
    .code(status)
    .header('Content-Type', type)
    .send(Buffer.from(serialize(type, data), 'utf8'));
}

/** Sends CherryPy's HTML error page. */
export function sendError(reply: FastifyReply, err: HttpError): FastifyReply {
  return reply
    .code(err.status)
    .header('Content-Type', 'text/html;charset=utf-8')
    .send(Buffer.from(errorPage(err.status, err.message), 'utf8'));
}

/** rest_cherrypy's cors_tool: every response names the caller's origin (or *) and allows credentials. */
export function corsHeaders(req: FastifyRequest, reply: FastifyReply): void {
  const origin = req.headers.origin;
  reply.header('Access-Control-Allow-Origin', typeof origin === 'string' && origin !== '' ? origin : '*');
  reply.header('Access-Control-Expose-Headers', 'GET, POST');
  reply.header('Access-Control-Allow-Credentials', 'true');
}

/** `expires=` as CherryPy writes it: an RFC 1123 date in GMT. */
function httpDate(epochMs: number): string {
  return new Date(epochMs).toUTCString();
}

/** The session cookie, renewed on every response of a session-using endpoint. */
export function setSessionCookie(reply: FastifyReply, id: string, secure: boolean): void {
  const expires = httpDate(Date.now() + SESSION_MAX_AGE * 1000);
  reply.header('Set-Cookie', `session_id=${id}; expires=${expires}; Max-Age=${SESSION_MAX_AGE}; Path=/${secure ? '; Secure' : ''}`);
}

/** The cookie a logout sends: a new id, expired a year ago, so the browser drops it. */
export function expireSessionCookie(reply: FastifyReply, id: string): void {
  reply.header('Set-Cookie', `session_id=${id}; expires=${httpDate(Date.now() - 365 * 86400 * 1000)}; Path=/`);
}
