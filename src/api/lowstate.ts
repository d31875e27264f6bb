/**
 * Request bodies into Salt's "lowstate" (a list of command chunks), as rest_cherrypy's
 * hypermedia_in and lowdata_fmt tools do: JSON, YAML, form-encoded (repeated keys become lists,
 * `arg`/`kwarg` values are read as the salt CLI reads words) and text/plain (JSON if it parses,
 * which is what browsers' fetch sends).
 */
import { parse as parseYaml } from 'yaml';
import { yamlifyArg } from '../core/pycompat';
import { HttpError } from './http-error';

export type Chunk = Record<string, unknown>;

/** The media type of a Content-Type header, lower case, without parameters. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

function formBody(raw: string): Chunk {
  const out: Record<string, unknown> = {};
  const multi: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(raw)) (multi[k] ??= []).push(v);
  for (const [k, vals] of Object.entries(multi)) out[k] = vals.length === 1 ? vals[0] : vals;
  if (Object.hasOwn(out, 'kwarg'))
    out.kwarg = Array.isArray(out.kwarg) ? out.kwarg.map((v) => yamlifyArg(String(v))) : yamlifyArg(String(out.kwarg));
  if (Object.hasOwn(out, 'arg'))
    out.arg = Array.isArray(out.arg) ? out.arg.map((v) => yamlifyArg(String(v))) : [yamlifyArg(String(out.arg))];
  return out;
}

/**
 * The data of a request body. An empty body is null; a content type salt-api does not read is
 * 406 "Content type not supported"; malformed JSON is 400 "Invalid JSON document".
 */
export function unserializeBody(contentType: string | undefined, raw: string): unknown {
  if (raw === '') return null;
  const type = mediaType(contentType);
  switch (type) {
    case 'application/x-www-form-urlencoded':
      return formBody(raw);
    case 'application/json':
      try {
        return JSON.parse(raw);
      } catch {
        throw new HttpError(400, 'Invalid JSON document');
      }
    case 'application/x-yaml':
    case 'text/yaml':
      try {
        return parseYaml(raw, { version: '1.1' });
      } catch {
        throw new HttpError(400, 'Invalid YAML document');
      }
    case 'text/plain':
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    default:
      throw new HttpError(406, 'Content type not supported');
  }
}

function isChunk(v: unknown): v is Chunk {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** lowdata_fmt: a single object becomes a one-chunk list (its scalar `arg` a one-item list); a list stays as it is. */
export function toLowstate(data: unknown): unknown {
  if (isChunk(data)) {
    const chunk = { ...data };
    if (Object.hasOwn(chunk, 'arg') && !Array.isArray(chunk.arg)) chunk.arg = [chunk.arg];
    return [chunk];
  }
  return data;
}

/** The lowstate as a list of chunks, or 400 "Lowstates must be a list" (and a clear 400 for a chunk that is not a mapping). */
export function chunksOf(lowstate: unknown): Chunk[] {
  if (!Array.isArray(lowstate)) throw new HttpError(400, 'Lowstates must be a list');
  return lowstate.map((c, i) => {
    if (!isChunk(c))
      throw new HttpError(400, `Lowstate chunk ${i} must be a mapping such as {"client": "local", "tgt": "*", "fun": "test.ping"}`);
    return { ...c };
  });
}
