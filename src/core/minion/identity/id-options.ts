/**
 * The minion options that shape the id (Salt 3007's `get_id`, `remove_domain_from_fqdn` and
 * `_append_domain`), checked so a mistyped option is a clear error rather than a strange id.
 */
import { ConfigError } from '../../errors';

export interface IdentityConfig {
  id?: string | null;
  minion_id_caching?: boolean;
  minion_id_lowercase?: boolean;
  minion_id_remove_domain?: boolean | string;
  append_domain?: string | null;
}

export interface IdentityOptions {
  /** `id:`; null when unset or empty (Salt treats an empty id as unset). */
  id: string | null;
  caching: boolean;
  lowercase: boolean;
  /** true: cut everything after the first dot; a string: cut that one domain; null: keep. */
  removeDomain: true | string | null;
  appendDomain: string | null;
}

function bad(option: string, want: string, got: unknown): ConfigError {
  const shown = got === null ? 'null' : Array.isArray(got) ? 'a list' : typeof got === 'object' ? 'a mapping' : JSON.stringify(got);
  return new ConfigError('BAD_OPTION', `minion option ${option} must be ${want}, not ${shown}`, {
    hint: `fix ${option} in the minion config file`,
  });
}

function flag(config: IdentityConfig, option: 'minion_id_caching' | 'minion_id_lowercase', dflt: boolean): boolean {
  const v = config[option];
  if (v === undefined || v === null) return dflt;
  if (typeof v !== 'boolean') throw bad(option, 'true or false', v);
  return v;
}

/** Validates and normalises the id options; throws `ConfigError` BAD_OPTION naming the option. */
export function readIdentityOptions(config: IdentityConfig): IdentityOptions {
  if (config === null || typeof config !== 'object') throw bad('config', 'a mapping of minion options', config);
  const id = config.id;
  if (id !== undefined && id !== null && typeof id !== 'string') throw bad('id', 'a string', id);
  const rd = config.minion_id_remove_domain;
  if (rd !== undefined && rd !== null && typeof rd !== 'boolean' && typeof rd !== 'string') {
    throw bad('minion_id_remove_domain', 'true, false or a domain name', rd);
  }
  const ad = config.append_domain;
  if (ad !== undefined && ad !== null && typeof ad !== 'string') throw bad('append_domain', 'a domain name', ad);
  return {
    id: id ? id : null,
    caching: flag(config, 'minion_id_caching', true),
    lowercase: flag(config, 'minion_id_lowercase', false),
    removeDomain: rd === true ? true : typeof rd === 'string' && rd !== '' ? rd : null,
    appendDomain: ad ? ad : null,
  };
}

/** Salt's `remove_domain_from_fqdn`; returns the new id and Salt's debug line, if it changed. */
export function removeDomain(id: string, domain: true | string): { id: string; message?: string } {
  if (domain === true) {
    const dot = id.indexOf('.');
    if (dot < 0) return { id };
    return { id: id.slice(0, dot), message: `Removed any domain (${id.slice(dot + 1)}) from minion id.` };
  }
  const suffix = `.${domain}`;
  if (!id.toUpperCase().endsWith(suffix.toUpperCase())) return { id };
  return { id: id.slice(0, id.length - suffix.length), message: `Removed single domain ${domain} from minion id.` };
}

/** Salt's `_append_domain`: a plain suffix test (no dot), and a trailing dot means "leave alone". */
export function appendDomain(id: string, domain: string): string {
  if (id.endsWith(domain) || id.endsWith('.')) return id;
  return `${id}.${domain}`;
}
