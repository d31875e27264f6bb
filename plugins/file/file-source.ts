/**
 * Where file.managed's text comes from: the first source of a list that exists (Salt's
 * `file.source_list`), a `source_hash` read as Salt reads it (`file.get_source_sum` and
 * `file.extract_hash`), and http(s) downloads.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { CommandExecutionError, extrnPath, httpDownload, redactUrl } from 'brine/plugin';
import { HASH_BY_LENGTH } from './file-paths';

/** Salt's HASHES: hash type -> hex length. */
const HASHES: Record<string, number> = { sha512: 128, sha384: 96, sha256: 64, sha224: 56, sha1: 40, md5: 32 };
const VALID_PROTOS = ['salt', 'file', 'http', 'https', 'ftp', 'swift', 's3'];

export interface SourceSum {
  hash_type: string;
  hsum: string;
}

/** The URL scheme of a source ('' for a plain path). */
export function schemeOf(source: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(source);
  return m ? m[1].toLowerCase() : '';
}

export const isRemote = (source: string): boolean => ['http', 'https', 'ftp'].includes(schemeOf(source));

/** A `file://` URL or plain path as a local path. */
export function localPath(source: string): string {
  return schemeOf(source) === 'file' ? source.slice('file://'.length) : source;
}

function invalidFormat(sourceHash: unknown): CommandExecutionError {
  const lengths = Object.keys(HASH_BY_LENGTH)
    .map(Number)
    .sort((a, b) => a - b)
    .map((n) => `${HASH_BY_LENGTH[n]} (${n})`)
    .join(', ');
  return new CommandExecutionError(
    `Source hash ${String(sourceHash)} format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files are: ${VALID_PROTOS.join(', ')}. The hash may also not be of a valid length, the following are supported hash types and lengths: ${lengths}.`,
  );
}

/** How a hash file is read: a local path for `salt://`/local names, the text of an http(s) one. */
export type HashFileReader = (url: string) => Promise<string | null>;

/**
 * Salt's `get_source_sum`: `<type>=<hex>`, a bare hex (its length names the type), or the path or
 * URL of a file of hashes (the line naming the target or the source file wins, else the first hash).
 */
export async function sourceSum(
  sourceHash: string,
  o: { fileName: string; source: string; sourceHashName?: string; readHashFile: HashFileReader },
): Promise<SourceSum> {
  let hashText: string | null = null;
  if (isAbsolute(sourceHash)) {
    hashText = existsSync(sourceHash) ? readFileSync(sourceHash, 'utf8') : null;
    if (hashText === null) throw new CommandExecutionError(`Source hash file ${sourceHash} not found`);
  } else {
    const proto = schemeOf(sourceHash);
    if (VALID_PROTOS.includes(proto)) {
      hashText = await o.readHashFile(sourceHash);
      if (hashText === null) throw new CommandExecutionError(`Source hash file ${sourceHash} not found`);
    } else if (proto !== '' || /^[a-z]+:\/\//i.test(sourceHash)) throw invalidFormat(sourceHash);
  }
  if (hashText !== null) {
    const found = extractHash(hashText, o.fileName, o.source, o.sourceHashName);
    if (!found) throw invalidFormat(sourceHash);
    return { ...found, hsum: found.hsum.toLowerCase() };
  }
  let hashType: string;
  let hsum: string;
  const eq = sourceHash.indexOf('=');
  if (eq !== -1) {
    hashType = sourceHash.slice(0, eq).trim();
    hsum = sourceHash.slice(eq + 1).trim();
  } else {
    if (!/^[0-9a-fA-F]+$/.test(sourceHash)) throw invalidFormat(sourceHash);
    hsum = sourceHash;
    hashType = HASH_BY_LENGTH[sourceHash.length];
    if (!hashType) throw invalidFormat(sourceHash);
  }
  if (!(hashType in HASHES)) {
    throw new CommandExecutionError(
      `Invalid hash type '${hashType}'. Supported hash types are: ${Object.keys(HASHES).join(', ')}. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to a supported type.`,
    );
  }
  if (!HASH_BY_LENGTH[hsum.length]) throw invalidFormat(sourceHash);
  if (hsum.length !== HASHES[hashType]) {
    throw new CommandExecutionError(
      `Invalid length (${hsum.length}) for hash type '${hashType}'. Either remove the hash type and simply use '${hsum}' as the source_hash, or change the hash type to '${HASH_BY_LENGTH[hsum.length]}'`,
    );
  }
  return { hash_type: hashType, hsum: hsum.toLowerCase() };
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Salt's `extract_hash` over a hash file's text: a line whose hash is followed by
 * `source_hash_name`, else by the target's base name, else by the source's; else the first hash.
 */
export function extractHash(text: string, fileName: string, source: string, sourceHashName?: string): SourceSum | null {
  const separators = /[\s\\/*]/;
  const searches: [string, string, string][] = [];
  if (sourceHashName) searches.push(['source_hash_name', sourceHashName, sourceHashName]);
  if (fileName) searches.push(['file_name', fileName, basename(fileName)]);
  if (source) searches.push(['source', source, basename(source.replace(/^[a-z]+:\/\/[^/]*/i, '') || source)]);
  const found: Record<string, SourceSum> = {};
  let partial: SourceSum | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const m = /(?<![a-z0-9])([a-f0-9]{32,128})(?![a-z0-9])/i.exec(line);
    const type = m ? HASH_BY_LENGTH[m[1].length] : undefined;
    if (!m || !type) continue;
    const matched = { hsum: m[1], hash_type: type };
    partial ??= matched;
    for (const [kind, full, base] of searches) {
      if (found[kind]) continue;
      const tail = kind === 'source_hash_name' ? full : base;
      if (line.endsWith(tail)) {
        const before = line[line.length - tail.length - 1];
        const ok =
          kind === 'source_hash_name' ? before !== undefined && /\s/.test(before) : before !== undefined && separators.test(before);
        if (ok) found[kind] = matched;
      } else if (new RegExp(`^${escapeRegex(full)}\\s+`).test(line)) found[kind] = matched;
    }
  }
  return found.source_hash_name ?? found.file_name ?? found.source ?? partial;
}

/** The hex digest of data. */
export const digest = (data: Buffer, type: string): string => createHash(type).update(data).digest('hex');

/**
 * Download an http(s) source into the minion's cache, where Salt's fileclient keeps it (`_extrn_path`,
 * the place cp.get_url also uses); its path. A failure reads as Salt's get_managed words it:
 * `Failed to cache <url, password hidden>: Error: HTTP 401: Unauthorized reading /private.txt`.
 */
export async function download(url: string, cachedir: string, saltenv: string): Promise<string> {
  if (schemeOf(url) === 'ftp')
    throw new CommandExecutionError(`Failed to cache ${redactUrl(url)}: ftp sources are not supported by brine; use http(s)`);
  try {
    return await httpDownload(url, extrnPath(url, cachedir, saltenv));
  } catch (err) {
    if (err instanceof CommandExecutionError) throw new CommandExecutionError(`Failed to cache ${redactUrl(url)}: ${err.message}`);
    throw err;
  }
}
