/**
 * The logic of `salt-key`, behaving and printing exactly as Salt 3007's KeyCLI does (salt/key.py
 * and the `key` outputter): the oclif command parses flags into SaltKeyOptions and calls runSaltKey.
 */
import * as path from 'node:path';
import { genKeysSignature } from '../core/master/pubkey-signature';
import { KEY_STATES, KEY_STATUS_NAMES, KeyState, KeyStore, STATE_DIRS } from '../core/master/key-store';
import { EXIT_USAGE } from './errors';
import { formatOutput, isOutputter, OUTPUTTERS } from './output';
import { getColors, type Colors } from './output/colors';

export type SaltKeyListName = 'acc' | 'accepted' | 'pre' | 'un' | 'unaccepted' | 'rej' | 'rejected' | 'den' | 'denied' | 'all';

export interface SaltKeyOptions {
  pkiDir: string;
  /** -l NAME */
  list?: SaltKeyListName;
  /** -L */
  listAll?: boolean;
  /** -a GLOB (a comma-separated list of globs works too) */
  accept?: string;
  /** -A */
  acceptAll?: boolean;
  /** -r GLOB */
  reject?: string;
  /** -R */
  rejectAll?: boolean;
  /** -d GLOB */
  delete?: string;
  /** -D */
  deleteAll?: boolean;
  /** -p GLOB */
  print?: string;
  /** -P */
  printAll?: boolean;
  /** -f GLOB */
  finger?: string;
  /** -F */
  fingerAll?: boolean;
  /** -y: do not ask */
  yes?: boolean;
  /** --include-all: accept also rejected keys, reject also accepted keys */
  includeAll?: boolean;
  /** --include-rejected / --include-accepted / --include-denied */
  includeRejected?: boolean;
  includeAccepted?: boolean;
  includeDenied?: boolean;
  /** --out: 'key' (the default) or any of brine's outputters (json, yaml, nested, txt, ...) */
  out?: string;
  /** --gen-keys NAME, --gen-keys-dir DIR (default '.'), --keysize BITS (default 2048) */
  genKeys?: string;
  genKeysDir?: string;
  keysize?: number;
  /**
   * --gen-signature: master_pubkey_signature for master_use_pubkey_signature, with --priv (default
   * pki_dir/master_sign.pem), --pub (default pki_dir/master.pub), --signature-path (default
   * pki_dir) and --auto-create (make the signing pair when there is none).
   */
  genSignature?: boolean;
  priv?: string;
  pub?: string;
  signaturePath?: string;
  autoCreate?: boolean;
  /** The master's master_sign_key_name and master_pubkey_signature (Salt's defaults when unset). */
  signKeyName?: string;
  signatureFile?: string;
  /** hash_type for fingerprints (default sha256) */
  hashType?: string;
  /** Print the key outputter in Salt's colours (see output/colors.ts useColor). */
  color?: boolean;
  /** Where the command logs its key changes (--log-file); default nowhere. */
  log?: { info(msg: string): void };
}

export interface SaltKeyIo {
  out(text: string): void;
  err(text: string): void;
  /**
   * Ask the user. The question is Salt's prompt, which names the default in capitals: an empty
   * answer to "Proceed? [n/Y] " means yes, to "Proceed? [N/y] " no.
   */
  confirm(question: string): Promise<boolean>;
}

/** What the `key` outputter and `--out json` print: Salt dir name -> ids, or ids -> text. */
type KeyData = Record<string, string[] | Record<string, string>>;

/** Salt's key outputter: each state's heading, its colour, and the colour of its ids. */
const HEADINGS: Record<string, { text: string; heading: keyof Colors; ids: keyof Colors }> = {
  local: { text: 'Local Keys:', heading: 'LIGHT_MAGENTA', ids: 'MAGENTA' },
  minions: { text: 'Accepted Keys:', heading: 'LIGHT_GREEN', ids: 'GREEN' },
  minions_denied: { text: 'Denied Keys:', heading: 'LIGHT_MAGENTA', ids: 'MAGENTA' },
  minions_pre: { text: 'Unaccepted Keys:', heading: 'LIGHT_RED', ids: 'RED' },
  minions_rejected: { text: 'Rejected Keys:', heading: 'LIGHT_BLUE', ids: 'BLUE' },
};

const LIST_NAMES: Record<SaltKeyListName, KeyState | 'all'> = {
  ...(KEY_STATUS_NAMES as Record<Exclude<SaltKeyListName, 'all'>, KeyState>),
  all: 'all',
};

const MIN_KEYSIZE = 2048;
const MAX_KEYSIZE = 32768;

/** Runs one salt-key invocation; resolves to the exit code (Salt exits 0 unless the usage is wrong). */
export async function runSaltKey(opts: SaltKeyOptions, io: SaltKeyIo): Promise<number> {
  const usage = usageProblem(opts);
  if (usage !== undefined) {
    io.err(`salt-key: error: ${usage}\n`);
    return EXIT_USAGE;
  }
  if (opts.genKeys !== undefined) return genKeys(opts, io);
  if (opts.genSignature) return genSignature(opts, io);

  const store = new KeyStore({ pkiDir: opts.pkiDir });
  store.ensureLayout();
  const show = (data: KeyData) => display(data, opts.out, io, getColors(opts.color === true));
  const hash = opts.hashType ?? 'sha256';

  if (opts.list !== undefined) {
    const which = LIST_NAMES[opts.list];
    show(which === 'all' ? listing(store) : { [STATE_DIRS[which]]: store.list(which) });
    return 0;
  }
  if (
    !opts.print &&
    !opts.printAll &&
    !opts.accept &&
    !opts.acceptAll &&
    !opts.reject &&
    !opts.rejectAll &&
    !opts.delete &&
    !opts.deleteAll &&
    !opts.finger &&
    !opts.fingerAll
  ) {
    show(listing(store)); // -L, and what salt-key does without a command
    return 0;
  }
  if (opts.print || opts.printAll) {
    const matches = store.find(opts.print ?? '*');
    show(perState(matches, (state, id) => store.publicKey(id, state) ?? ''));
    return 0;
  }
  if (opts.accept || opts.acceptAll) return change('accept', opts.accept ?? '*', store, opts, io);
  if (opts.reject || opts.rejectAll) return change('reject', opts.reject ?? '*', store, opts, io);
  if (opts.delete || opts.deleteAll) return change('delete', opts.delete ?? '*', store, opts, io);

  // -f / -F also match the local keys (master.pem, master.pub) and list them first.
  const glob = opts.finger ?? '*';
  const data: KeyData = perState(store.find(glob), (state, id) => store.fingerprint(id, hash, state) ?? '');
  const local = store.findLocal(glob);
  if (local.length > 0) {
    data.local = Object.fromEntries(local.map((name) => [name, store.localFingerprint(name, hash) ?? '']));
  }
  show(data);
  return 0;
}

function usageProblem(opts: SaltKeyOptions): string | undefined {
  if (typeof opts.pkiDir !== 'string' || opts.pkiDir === '') return 'no pki_dir given';
  if (opts.list !== undefined && !(opts.list in LIST_NAMES)) {
    return `'${String(opts.list)}' is not a valid argument to '--list'; use one of ${Object.keys(LIST_NAMES).join(', ')}`;
  }
  if (opts.out !== undefined && opts.out !== 'key' && !isOutputter(opts.out)) {
    return `unknown outputter '${opts.out}'; use key, ${OUTPUTTERS.join(', ')}`;
  }
  if (opts.genKeys !== undefined || opts.genSignature) {
    const size = opts.keysize ?? MIN_KEYSIZE;
    if (!Number.isInteger(size)) return `keysize must be an integer, got ${String(opts.keysize)}`;
    if (size < MIN_KEYSIZE) return `The minimum value for keysize is ${MIN_KEYSIZE}`;
    if (size > MAX_KEYSIZE) return `The maximum value for keysize is ${MAX_KEYSIZE}`;
    if (opts.genKeys !== undefined && (opts.genKeys === '' || /[/\\\0]/.test(opts.genKeys))) {
      return `--gen-keys needs a plain key name, got '${opts.genKeys}'`;
    }
  }
  return undefined;
}

function listing(store: KeyStore): KeyData {
  const all = store.list('all');
  return Object.fromEntries(KEY_STATES.map((s) => [STATE_DIRS[s], all[s]]));
}

function perState(matches: Partial<Record<KeyState, string[]>>, value: (state: KeyState, id: string) => string): KeyData {
  const data: KeyData = {};
  for (const state of KEY_STATES) {
    const ids = matches[state];
    if (ids) data[STATE_DIRS[state]] = Object.fromEntries(ids.map((id) => [id, value(state, id)]));
  }
  return data;
}

type Change = 'accept' | 'reject' | 'delete';

/** accept / reject / delete: show what matches, ask unless -y, act, report each key. */
async function change(cmd: Change, glob: string, store: KeyStore, opts: SaltKeyOptions, io: SaltKeyIo): Promise<number> {
  const includeAccepted = cmd === 'reject' && (opts.includeAll || opts.includeAccepted) === true;
  const includeRejected = cmd === 'accept' && (opts.includeAll || opts.includeRejected) === true;
  const includeDenied = opts.includeDenied === true;
  const matches = store.find(glob);
  // Salt's _filter_ret: pending always; the others only when included; delete takes everything.
  const states: KeyState[] =
    cmd === 'delete'
      ? KEY_STATES.filter((s) => matches[s])
      : (['pending', 'accepted', 'rejected', 'denied'] as const).filter(
          (s) =>
            matches[s] &&
            (s === 'pending' ||
              (s === 'accepted' && includeAccepted) ||
              (s === 'rejected' && includeRejected) ||
              (s === 'denied' && includeDenied)),
        );
  if (states.length === 0) {
    const names = ['unaccepted'];
    if (includeAccepted) names.push('accepted');
    if (includeRejected) names.push('rejected');
    if (includeDenied) names.push('denied');
    const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
    io.out(`The key glob '${glob}' does not match any ${list} keys.\n`);
    return 0;
  }
  const chosen: KeyData = Object.fromEntries(states.map((s) => [STATE_DIRS[s], matches[s] ?? []]));
  io.out(`The following keys are going to be ${cmd === 'delete' ? 'delet' : cmd}ed:\n`);
  display(chosen, opts.out, io, getColors(opts.color === true));
  if (!opts.yes && !(await io.confirm(cmd === 'delete' ? 'Proceed? [N/y] ' : 'Proceed? [n/Y] '))) return 0;

  const done: string[] = [];
  for (const state of states) {
    const ids = matches[state] ?? [];
    if (cmd === 'accept') {
      const result = store.accept(ids, [state]);
      for (const id of result.invalid) io.err(`Unable to accept invalid key for ${id}.\n`);
      done.push(...result.accepted);
    } else if (cmd === 'reject') {
      done.push(...store.reject(ids, [state]));
    } else {
      store.delete(ids, [state]);
      done.push(...ids); // Salt reports every key it was asked to delete
    }
  }
  const verb = cmd === 'delete' ? 'deleted' : `${cmd}ed`;
  for (const id of done) {
    io.out(`Key for minion ${id} ${verb}.\n`);
    opts.log?.info(`Key for minion ${id} ${verb}`);
  }
  return 0;
}

/** --gen-keys: NAME.pem (0400) and NAME.pub in --gen-keys-dir; an existing pair is kept. */
function genKeys(opts: SaltKeyOptions, io: SaltKeyIo): number {
  const dir = path.resolve(opts.genKeysDir ?? '.');
  const name = opts.genKeys as string;
  KeyStore.genKeys(dir, name, opts.keysize ?? MIN_KEYSIZE);
  const finger = new KeyStore({ pkiDir: dir }).localFingerprint(`${name}.pub`, opts.hashType ?? 'sha256') ?? '';
  // Salt hands {return: fingerprint} to the key outputter, which fails on it and falls back to nested.
  const out = opts.out === undefined || opts.out === 'key' ? 'nested' : opts.out;
  io.out(formatOutput(isOutputter(out) ? out : 'nested', { return: finger }));
  return 0;
}

/** --gen-signature (see genKeysSignature): Salt prints its answer, True, False or what is missing. */
function genSignature(opts: SaltKeyOptions, io: SaltKeyIo): number {
  const result = genKeysSignature({
    pkiDir: opts.pkiDir,
    priv: opts.priv,
    pub: opts.pub,
    signaturePath: opts.signaturePath,
    autoCreate: opts.autoCreate,
    keysize: opts.keysize ?? MIN_KEYSIZE,
    signKeyName: opts.signKeyName,
    signatureFile: opts.signatureFile,
  });
  if (result === true) opts.log?.info('Wrote the signature of the master key');
  const out = opts.out === undefined || opts.out === 'key' ? 'nested' : opts.out;
  io.out(formatOutput(isOutputter(out) ? out : 'nested', { return: result }));
  return 0;
}

/**
 * Salt's `key` outputter (states in sorted order, ids sorted, whole text right-stripped, nothing
 * printed when empty), or the outputter named by --out.
 */
function display(data: KeyData, out: string | undefined, io: SaltKeyIo, c: Colors): void {
  if (out !== undefined && out !== 'key' && isOutputter(out)) {
    io.out(formatOutput(out, data, { color: c.ENDC !== '' }));
    return;
  }
  let text = '';
  for (const status of Object.keys(data).sort(byCodePoint)) {
    const { text: heading, heading: headingColor, ids } = HEADINGS[status];
    text += `${c[headingColor]}${heading}${c.ENDC}\n`;
    const entries = data[status];
    // ESC in an id is replaced, so a key name cannot drive the terminal (Salt's strip_colors).
    const safe = (id: string): string => id.replace(/\x1b/g, '?');
    if (Array.isArray(entries)) {
      for (const id of [...entries].sort(byCodePoint)) text += `${c[ids]}${safe(id)}${c.ENDC}\n`;
    } else {
      for (const id of Object.keys(entries).sort(byCodePoint)) text += `${c[ids]}${safe(id)}:  ${entries[id]}${c.ENDC}\n`;
    }
  }
  text = text.replace(/\s+$/, '');
  if (text !== '') io.out(`${text}\n`);
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
