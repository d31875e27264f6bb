/**
 * The plugin API's http(s) fetch (brine/plugin: httpGet, httpDownload, extrnPath, redactUrl), what
 * cp.get_url, cp.cache_file and file.managed share, against servers written here. The wording is
 * the reference Salt 3007's (salt-call --local cp.get_url against Python's http.server).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandExecutionError, extrnPath, httpDownload, httpExists, httpGet, redactUrl } from 'brine/plugin';
import { freePort } from '../support/ports';

const tmp = mkdtempSync(join(tmpdir(), 'brine-http-fetch-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('extrnPath and redactUrl', () => {
  it("put a download where Salt's fileclient does: host without ':' or credentials, the query after '-', a folder's body as download", () => {
    expect(extrnPath('http://example.com:8080/dir/a.txt', '/c', 'base')).toBe('/c/extrn_files/base/example.com8080/dir/a.txt');
    expect(extrnPath('https://u:p@example.com/a.txt?v=2&x=1', '/c', 'prod')).toBe('/c/extrn_files/prod/example.com/a.txt-v=2&x=1');
    expect(extrnPath('http://example.com/dir/', '/c', 'base')).toBe('/c/extrn_files/base/example.com/dir/download');
  });

  it('hide the credentials of a URL, and leave one without them as it is', () => {
    expect(redactUrl('https://deploy:s3cret@host:8443/x')).toBe('https://<redacted>@host:8443/x');
    expect(redactUrl('ftp://u:p@host/x')).toBe('ftp://<redacted>@host/x');
    expect(redactUrl('http://host/a@b')).toBe('http://host/a@b');
    expect(redactUrl('http://host?to=a@b')).toBe('http://host?to=a@b');
  });
});

describe('httpGet and httpDownload', () => {
  it('fetch a body with basic authentication from user:password in the URL, and write it through a temporary name', async () => {
    const server = createHttpServer((req, res) => res.end(`auth=${req.headers.authorization ?? ''}`));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const body = await httpGet(`http://us%40er:pa%3Ass@127.0.0.1:${port}/x`);
      expect(body.toString()).toBe(`auth=Basic ${Buffer.from('us@er:pa:ss').toString('base64')}`);
      const dest = join(tmp, 'deep', 'folder', 'x.txt');
      expect(await httpDownload(`http://127.0.0.1:${port}/x`, dest)).toBe(dest);
      expect(readFileSync(dest, 'utf8')).toBe('auth=');
      expect(readdirSync(join(tmp, 'deep', 'folder'))).toEqual(['x.txt']);
      // HEAD, for a source list: credentials from the URL too, and false for anything that fails.
      expect(await httpExists(`http://u:p@127.0.0.1:${port}/x`)).toBe(true);
      expect(await httpExists(`http://127.0.0.1:${await freePort()}/x`)).toBe(false);
      expect(await httpExists('ftp://127.0.0.1/x')).toBe(false);
    } finally {
      server.close();
    }
  });

  it("words a failure as Salt's fileclient: the server's reason phrase, Python's when it gives none, the path alone", async () => {
    // A raw server: the status line as given, an empty reason included.
    const server = createServer((socket) => {
      socket.once('data', (request: Buffer) => {
        const status = request.toString('latin1').startsWith('GET /empty') ? '413 ' : '404 File not found';
        socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await expect(httpGet(`${base}/gone?q=1`)).rejects.toThrow(/^Error: HTTP 404: File not found reading \/gone$/);
      await expect(httpGet(`${base}/empty`)).rejects.toThrow(/^Error: HTTP 413: Request Entity Too Large reading \/empty$/);
    } finally {
      server.close();
    }
    const refused = `http://127.0.0.1:${await freePort()}/x.txt`;
    const err = await httpGet(refused).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CommandExecutionError);
    expect((err as Error).message).toBe('Error: [Errno 111] Connection refused reading /x.txt');
  });

  it('refuses what is not an http(s) URL, naming it without its password', async () => {
    await expect(httpGet('ftp://u:secret@host/x')).rejects.toThrow('Not an http(s) URL: ftp://<redacted>@host/x');
    await expect(httpGet('https://u:secret@host:99999/x')).rejects.toThrow('Invalid URL: https://<redacted>@host:99999/x');
  });
});
