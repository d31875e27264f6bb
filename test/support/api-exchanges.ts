/**
 * Reads `../shared/salt-api/exchanges/*.txt` (real HTTP exchanges with Salt 3007.10's salt-api)
 * and normalises what varies between runs: tokens, jids, times, ports, key material.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './cluster';

export const EXCHANGES = join(REPO, '..', 'shared', 'salt-api', 'exchanges');

export interface Exchange {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  status: number;
  responseHeaders: Record<string, string>;
  responseBody: string;
}

function headerBlock(lines: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) out[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return out;
}

export function readExchange(name: string): Exchange {
  const text = readFileSync(join(EXCHANGES, name.endsWith('.txt') ? name : `${name}.txt`), 'utf8');
  const [reqPart, respPart] = text.replace(/^=== REQUEST ===\n/, '').split('\n=== RESPONSE ===\n');
  const [reqHead, ...reqBody] = reqPart.split('\n\n');
  const [reqLine, ...reqHeaders] = reqHead.split('\n');
  const [method, path] = reqLine.split(' ');
  const [respHead, ...respBody] = respPart.split('\n\n');
  const [statusLine, ...respHeaders] = respHead.split('\n');
  let responseBody = respBody.join('\n\n');
  // The capture ends each body with one newline of its own, and SSE captures with curl's line.
  responseBody = responseBody.replace(/\ncurl: \(28\)[^\n]*\n?$/, '\n');
  if (responseBody.endsWith('\n')) responseBody = responseBody.slice(0, -1);
  return {
    name,
    method,
    path,
    headers: headerBlock(reqHeaders),
    body: reqBody.join('\n\n').replace(/\n$/, ''),
    status: Number(statusLine.split(' ')[1]),
    responseHeaders: headerBlock(respHeaders),
    responseBody,
  };
}

/** Replaces what differs between two runs of the same exchange. */
export function normalise(text: string): string {
  return text
    .replace(/\b[0-9a-f]{64}\b/g, '<TOKEN64>')
    .replace(/\b[0-9a-f]{40}\b/g, '<TOKEN40>')
    .replace(/\b\d{20}\b/g, '<JID>')
    .replace(/"(start|expire)": [0-9.]+/g, '"$1": "<TIME>"')
    .replace(/Cheroot HTTPServer \d+/g, 'Cheroot HTTPServer <ID>')
    .replace(/"_stamp": "[^"]+"/g, '"_stamp": "<STAMP>"')
    .replace(/"start_time": "\d\d:\d\d:\d\d\.\d{6}"/g, '"start_time": "<TIME>"')
    .replace(/"duration": [0-9.]+/g, '"duration": "<DURATION>"')
    .replace(/"StartTime": "\d{4}, \w{3} \d\d \d\d:\d\d:\d\d\.\d{6}"/g, '"StartTime": "<STARTTIME>"')
    .replace(/([0-9a-f]{2}:){31}[0-9a-f]{2}/g, '<FINGERPRINT>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<PORT>');
}

/** JSON parsed after normalising, so that the order minions answered in does not matter. */
export function normalisedJson(text: string): unknown {
  return JSON.parse(normalise(text));
}
