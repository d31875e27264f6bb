/**
 * Salt's fileclient over http(s), for the modules that fetch a URL (`cp.get_url`,
 * `cp.cache_file`, `file.managed` with an http source): where a download is cached, how a password
 * in the URL is used and hidden, and the words of a failure, all as the reference Salt 3007 has
 * them (checked against `salt-call --local` with a local HTTP server).
 */
import { mkdirSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CommandExecutionError } from './errors';

/**
 * `url` with the credentials of `user:password@` replaced, as Salt's redact_http_basic_auth does
 * for http(s) (`http://<redacted>@host/...`), and for any other scheme too: for every message and
 * log line that names the URL.
 */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*):\/\/[^/?#]*@/i, '$1://<redacted>@');
}

/**
 * Salt's `_extrn_path`, where an http(s) download is cached:
 * `<cachedir>/extrn_files/<saltenv>/<host without ':' or credentials>/<path>[-<query>]`. A URL of
 * a folder (`http://host/dir/`) names no file: its body is kept as `download` in that folder.
 */
export function extrnPath(url: string, cachedir: string, saltenv: string): string {
  const parsed = new URL(url);
  const name = parsed.search ? `${parsed.pathname}-${parsed.search.slice(1)}` : parsed.pathname;
  return join(cachedir, 'extrn_files', saltenv, parsed.host.replace(/:/g, ''), name.endsWith('/') ? `${name}download` : name);
}

/**
 * The reason phrase of a status when the server gave none: Python 3.11's http.client.responses
 * (the reference Salt's), which is Node's table but for these, and `Unknown` past it.
 */
const PYTHON_REASONS: Record<number, string> = {
  413: 'Request Entity Too Large',
  414: 'Request-URI Too Long',
  416: 'Requested Range Not Satisfiable',
  509: 'Unknown',
};

/**
 * Node's reason phrases, from node:http when a request fails: every plugin loads this module
 * through brine/plugin, and node:http's code was 0.3–0.4 MiB of an idle minion's resident memory.
 */
function statusCodes(): Record<number, string | undefined> {
  return (require('node:http') as typeof import('node:http')).STATUS_CODES;
}

/**
 * An http(s) request as Salt's http.query makes it: `user:password@` in the URL is HTTP basic
 * authentication (fetch itself refuses such URLs). Throws CommandExecutionError for what is not an
 * http(s) URL; the request's own failure is fetch's.
 */
function request(url: string, method: 'GET' | 'HEAD'): { parsed: URL; response: Promise<Response> } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CommandExecutionError(`Invalid URL: ${redactUrl(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new CommandExecutionError(`Not an http(s) URL: ${redactUrl(url)}`);
  }
  const headers: Record<string, string> = {};
  if (parsed.username || parsed.password) {
    const pair = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    headers.Authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  }
  const plain = new URL(parsed.href);
  plain.username = '';
  plain.password = '';
  return { parsed, response: fetch(plain, { method, headers }) };
}

/**
 * The body of an http(s) URL (basic authentication from the URL, as `request`). A failure throws
 * CommandExecutionError in Salt's fileclient words, with only the URL's path after "reading":
 * `Error: HTTP 404: Not Found reading /path` (tornado's text: the server's reason phrase),
 * `Error: [Errno 111] Connection refused reading /path`; other connection errors in Node's words.
 */
export async function httpGet(url: string): Promise<Buffer> {
  const { parsed, response } = request(url, 'GET');
  const failed = (why: string) => new CommandExecutionError(`Error: ${why} reading ${parsed.pathname}`);
  let res: Response;
  try {
    res = await response;
  } catch (err) {
    const cause = (err as Error).cause as NodeJS.ErrnoException | undefined;
    // Python's OSError text for the refusal Salt prints; Node's own words for anything else.
    throw failed(cause?.code === 'ECONNREFUSED' ? '[Errno 111] Connection refused' : (cause?.message ?? (err as Error).message));
  }
  if (!res.ok) {
    const reason = res.statusText || PYTHON_REASONS[res.status] || statusCodes()[res.status] || 'Unknown';
    throw failed(`HTTP ${res.status}: ${reason}`);
  }
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Whether an http(s) URL answers a HEAD request with success (basic authentication from the
 * URL): how Salt's file.source_list tells which source of a list exists. Any failure is false.
 */
export async function httpExists(url: string): Promise<boolean> {
  try {
    return (await request(url, 'HEAD').response).ok;
  } catch {
    return false;
  }
}

/** httpGet's body written to `dest` (its folder made), through a temporary name; `dest`. */
export async function httpDownload(url: string, dest: string): Promise<string> {
  const body = await httpGet(url);
  mkdirSync(dirname(dest), { recursive: true });
  const part = `${dest}.part-${process.pid}`;
  await writeFile(part, body);
  await rename(part, dest);
  return dest;
}
