/**
 * The minion id, chosen as Salt 3007 chooses it (`salt.config.apply_minion_config` → `get_id` →
 * `salt.utils.network.generate_minion_id`), with warnings Salt does not give.
 */
import * as path from 'node:path';
import { ConfigError } from '../../errors';
import { collectCandidates, type CandidateReport, type CandidateSource } from './candidates';
import { appendDomain, readIdentityOptions, removeDomain, type IdentityConfig, type IdentityOptions } from './id-options';
import { appendedToIPv4Warning, describeSource, sharedIdWarning, staleCacheWarning, type WarningContext } from './id-warnings';
import type { IdentityLog, IdentitySources } from './identity-sources';
import { isIPv4 } from './ipv4';
import { pyLines, pyStrip } from '../../pycompat';

export type IdRule = 'config' | 'cache' | CandidateSource | 'fallback';

export interface MinionIdResult {
  id: string;
  rule: IdRule;
  /** A sentence saying which rule chose the id. */
  detail: string;
  warnings: string[];
}

export interface ResolveOptions {
  /**
   * Write a guessed id to the cache. salt-minion does (Salt passes `cache_minion_id=True` there);
   * one-shot tools such as salt-call do not. Default true.
   */
  writeCache?: boolean;
}

/** The id cache file: `minion_id` beside the minion config. */
export function idCachePath(configDir: string): string {
  return path.join(configDir, 'minion_id');
}

/** The cache's id: its first line, a byte-order mark dropped, surrounding whitespace stripped. */
export function parseIdCache(text: string): string {
  const first = pyLines(text)[0] ?? '';
  return pyStrip(first.replace(/^\ufeff/, ''));
}

interface Guess {
  id: string;
  source: CandidateSource | 'fallback';
  report: CandidateReport;
  /** Sentences for the transformations applied, and Salt's debug lines for them. */
  steps: string[];
  debug: string[];
}

/** generate_minion_id() then minion_id_lowercase and minion_id_remove_domain, as get_id applies them. */
async function guess(opts: IdentityOptions, sources: IdentitySources, log: IdentityLog): Promise<Guess> {
  const report = await collectCandidates(sources, log);
  const first = report.candidates[0];
  let id = first ? first.name : 'localhost';
  const source = first ? first.source : 'fallback';
  const steps: string[] = [];
  const debug: string[] = [];
  if (opts.lowercase && id.toLowerCase() !== id) {
    id = id.toLowerCase();
    steps.push('lowercased (minion_id_lowercase)');
  }
  if (opts.lowercase) debug.push(`Changed minion id ${id} to lowercase.`);
  if (opts.removeDomain !== null) {
    const cut = removeDomain(id, opts.removeDomain);
    // A name such as ".lan" would lose everything; keep it whole rather than sign in with "".
    if (cut.message && cut.id !== '') {
      steps.push(`its domain removed (minion_id_remove_domain: ${opts.removeDomain === true ? 'True' : opts.removeDomain})`);
      debug.push(cut.message);
      id = cut.id;
    }
  }
  return { id, source, report, steps, debug };
}

function quoteList(names: { name: string; source: CandidateSource }[]): string {
  return names.map((d) => `"${d.name}" from ${describeSource(d.source)}`).join(', ');
}

function guessDetail(g: Guess): string {
  const chosen = g.report.candidates[0];
  let text: string;
  if (!chosen) {
    text = `nothing usable was found (every candidate was empty or a loopback name), so Salt's fallback "localhost" is used`;
  } else if (chosen.source === 'getfqdn') {
    text = `getfqdn() of the host name "${g.report.hostname}" answered "${chosen.name}"`;
  } else if (chosen.source === 'ip') {
    text = `"${chosen.name}" is ${describeSource('ip')} (no host name was usable)`;
  } else if (chosen.line !== undefined && chosen.source === '/etc/hosts') {
    text = `"${chosen.name}" came from the /etc/hosts line "${chosen.line}"`;
  } else {
    text = `"${chosen.name}" came from ${describeSource(chosen.source)}`;
  }
  const skipped = g.report.dropped.filter((d) => d.source === 'getfqdn' || d.source === 'nodename' || d.source === 'gethostname');
  if (chosen && skipped.length > 0) text += `; skipped as loopback names: ${quoteList(skipped)}`;
  if (g.steps.length > 0) text += `; then ${g.steps.join(', then ')}`;
  return text;
}

function emit(log: IdentityLog, warnings: string[], w: string | null): void {
  if (w === null) return;
  warnings.push(w);
  log.warning(w);
}

/**
 * Chooses the minion id:
 * 1. `id:` from the config;
 * 2. else the first line of `<configDir>/minion_id` when minion_id_caching is on, unless empty or
 *    `localhost` (so a cached `localhost.localdomain` IS used, as in Salt);
 * 3. else Salt's candidate list (getfqdn, node name, gethostname, /etc/hostname, /etc/nodename,
 *    /etc/hosts, non-loopback IPv4 addresses; loopback names dropped), first survivor or
 *    `localhost`, then minion_id_lowercase and minion_id_remove_domain; the guess is cached;
 * 4. then append_domain, except for a freshly guessed IPv4 id.
 * Throws `ConfigError` BAD_OPTION for a mistyped option.
 */
export async function resolveMinionId(
  config: IdentityConfig,
  configDir: string,
  sources: IdentitySources,
  log: IdentityLog,
  options: ResolveOptions = {},
): Promise<MinionIdResult> {
  const opts = readIdentityOptions(config);
  if (typeof configDir !== 'string' || configDir === '') {
    throw new ConfigError('BAD_CONFIG_DIR', 'the minion config directory must be a non-empty path', {
      hint: 'pass the directory holding the minion config file, such as /etc/salt',
    });
  }
  const cachePath = idCachePath(configDir);
  const minionFile = path.join(configDir, 'minion');
  const warnings: string[] = [];
  let id: string;
  let rule: IdRule;
  let detail: string;
  let ctx: WarningContext;
  let usingIpForId = false;

  if (opts.id !== null) {
    id = opts.id;
    rule = 'config';
    detail = `set by "id: ${id}" in ${minionFile}`;
    log.debug(`Using minion id from the id option in ${minionFile}: ${id}`);
    ctx = { id, rule, configDir, cachePath, inCache: false };
  } else {
    const cached = opts.caching ? await readCache(cachePath, sources, log, warnings) : null;
    if (cached !== null) {
      id = cached;
      rule = 'cache';
      detail = `read from the id cache ${cachePath} (written when the id was first guessed; delete it to guess again)`;
      log.debug(`Using cached minion ID from ${cachePath}: ${id}`);
      // Guess afresh only to tell whether the cache went stale; Salt itself trusts the cache.
      const fresh = await guess(opts, sources, log);
      ctx = { id, rule, configDir, cachePath, inCache: true, report: fresh.report, fresh: { id: fresh.id, source: fresh.source } };
    } else {
      log.debug(`Guessing ID. The id can be explicitly set in ${minionFile}`);
      const g = await guess(opts, sources, log);
      const chosen = g.report.candidates[0];
      if (chosen) log.debug(`Found minion id from ${sourceLabel(chosen.source)}: ${chosen.name}`);
      for (const line of g.debug) log.debug(line);
      id = g.id;
      rule = g.source;
      detail = guessDetail(g);
      log.debug(`Found minion id from generate_minion_id(): ${id}`);
      const written = opts.caching && options.writeCache !== false && (await writeCache(cachePath, id, sources, log, warnings));
      usingIpForId = isIPv4(id);
      ctx = { id, rule, configDir, cachePath, inCache: written, report: g.report, fresh: { id, source: g.source } };
    }
  }

  // The cache holds the id before append_domain, so staleness is judged before it too.
  const beforeAppend = ctx;
  if (!usingIpForId && opts.appendDomain !== null) {
    const before = id;
    id = appendDomain(id, opts.appendDomain);
    if (id !== before) detail += `; then append_domain added ".${opts.appendDomain}"`;
    emit(log, warnings, appendedToIPv4Warning(before, id, ctx));
    ctx = { ...ctx, id };
  } else if (usingIpForId && opts.appendDomain !== null) {
    detail += '; append_domain is not applied to an IPv4 id';
  }

  emit(log, warnings, sharedIdWarning(ctx));
  emit(log, warnings, staleCacheWarning(beforeAppend));
  return { id, rule, detail, warnings };
}

async function readCache(file: string, sources: IdentitySources, log: IdentityLog, warnings: string[]): Promise<string | null> {
  let text: string | null;
  try {
    text = await sources.readCacheFile(file);
  } catch (err) {
    // Salt skips an unreadable cache silently; saying so explains a changed id.
    emit(
      log,
      warnings,
      `Cannot read the minion id cache ${file} (${errText(err)}); guessing the id instead. Fix its permissions or delete it, then restart salt-minion.`,
    );
    return null;
  }
  if (text === null) return null;
  const name = parseIdCache(text);
  if (name === '' || name === 'localhost') {
    log.debug(`Ignoring the minion id cache ${file}: it holds ${name === '' ? 'no id' : '"localhost"'}`);
    return null;
  }
  return name;
}

/** Writes the guess to the cache; false (with a warning) when that failed. */
async function writeCache(file: string, id: string, sources: IdentitySources, log: IdentityLog, warnings: string[]): Promise<boolean> {
  try {
    await sources.writeCacheFile(file, id);
    log.debug(`Cached minion ID in ${file}: ${id}`);
    return true;
  } catch (err) {
    emit(
      log,
      warnings,
      `Could not cache minion ID: ${errText(err)} (writing ${file}); the id is guessed again at every start, so a host rename changes it.`,
    );
    return false;
  }
}

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e && typeof e === 'object' ? (e.code ?? e.message ?? String(err)) : String(err);
}

/** How the debug log names a candidate source: `getfqdn()`, `/etc/hosts`, `an interface address`. */
function sourceLabel(source: CandidateSource): string {
  if (source === 'ip') return 'an interface address';
  return source.startsWith('/') ? source : `${source}()`;
}
