/**
 * Minion id validation, the same everywhere an id enters: the master's `_auth`, every aes request,
 * salt-key, and the minion's own id. A minion id names a file under pki_dir (minions/<id>,
 * minions_pre/<id>, ...), so like Salt's `valid_id` it must not be able to name a path outside
 * those directories; brine also refuses ids that would hide from `salt-key -L` (a leading dot) or
 * look like another id (bidi and other invisible characters, look-alike slashes and dots,
 * whitespace at either end), and ids too long to be a file name.
 */
import { ProtocolError } from '../errors';

/** Longest id in UTF-8 bytes: a file name on Linux. */
export const MAX_MINION_ID_BYTES = 255;

// C0, DEL and C1 control characters would garble listings and logs; NUL would truncate paths.
const CONTROL = /\p{Cc}/u;
// Format characters: bidi overrides and isolates (U+202A-202E, U+2066-2069), zero-width joiners,
// soft hyphen, BOM: they make one id display as another.
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]/u;
// Slashes and backslashes that NFKC leaves alone: division slash, fraction slash, big solidus,
// set minus, reverse solidus operator, small reverse solidus.
const SLASH_LOOKALIKE = /[\u2215\u2044\u29f8\u2216\u29f9\ufe68]/u;

// The common case, checked on every request a master gets: a plain ASCII name not starting with a
// dot, at most 255 characters. None of the checks below can fail for such an id.
const PLAIN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,254}$/;

/** Why `id` cannot be a minion id, or undefined when it can. */
export function minionIdProblem(id: unknown): string | undefined {
  if (typeof id === 'string' && PLAIN.test(id)) return undefined;
  if (typeof id !== 'string') return 'a minion id must be a string';
  if (id === '') return 'a minion id must not be empty';
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_MINION_ID_BYTES) return `a minion id must be at most ${MAX_MINION_ID_BYTES} bytes, this one has ${bytes}`;
  const shown = JSON.stringify(id);
  if (id === '.' || id === '..') return `minion id '${id}' would name a directory`;
  if (id.includes('/') || id.includes('\\')) return `minion id ${shown} contains a path separator`;
  if (CONTROL.test(id)) return `minion id ${shown} contains a control character`;
  if (INVISIBLE.test(id)) return `minion id ${shown} contains an invisible or bidi formatting character`;
  if (SLASH_LOOKALIKE.test(id)) return `minion id ${shown} contains a character that looks like a path separator`;
  if (id.startsWith('.')) return `minion id ${shown} starts with a dot (salt-key would not list it)`;
  if (id.trim() !== id) return `minion id ${shown} starts or ends with whitespace`;
  // NFKC folds look-alikes (U+2215 division slash, full-width dots and letters) to what they imitate.
  if (id.normalize('NFKC') !== id)
    return `minion id ${shown} contains look-alike characters (its NFKC form is ${JSON.stringify(id.normalize('NFKC'))})`;
  return undefined;
}

export function isValidMinionId(id: unknown): id is string {
  return minionIdProblem(id) === undefined;
}

const ID_RULES =
  'minion ids are at most 255 bytes, may not be empty, ".", "..", start with a dot, start or end with whitespace, ' +
  'or contain "/", "\\", control, bidi or look-alike characters';

/** Throws `ProtocolError` code `BAD_ID` naming what is wrong with `id`. */
export function assertMinionId(id: unknown): asserts id is string {
  const problem = minionIdProblem(id);
  if (problem !== undefined) throw new ProtocolError('BAD_ID', problem, { hint: ID_RULES });
}
