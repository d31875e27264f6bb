/**
 * Salt's Jinja filters beyond the basic ones of filters.ts (salt/utils/data.py, dictupdate.py,
 * hashutils.py, stringutils.py, files.py, path.py, dateutils.py, jinja.py), with Salt's
 * semantics. Filters that need the network at render time (dns_check, http_query) are refused
 * with a message naming the execution function to call instead.
 */
import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
import { accessSync, constants, openSync, readSync, closeSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { exprMatch, formatYaml, isMapping, pyStrftime, pyTuple, traverse } from '../../pycompat';
import {
  TemplateRuntimeError,
  iterate,
  lookup,
  pyEquals,
  pySortCompare,
  pyText,
  splitKeywords,
  truthy,
  withKeywords,
} from './python-values';

type Fn = (...args: unknown[]) => unknown;
type Dict = Record<string, unknown>;

// salt.utils.jinja.GLOBAL_UUID
const GLOBAL_UUID = Buffer.from('91633EBF1C865E33935A28061F4B480E', 'hex');

/** uuid.uuid5(namespace, name) */
function uuid5(name: string): string {
  const h = createHash('sha1').update(GLOBAL_UUID).update(Buffer.from(name, 'utf8')).digest().subarray(0, 16);
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

/** salt.utils.dictupdate._dict_rpartition: the dict holding the last key, created on the way. */
function dictPointer(inDict: unknown, keys: unknown, delim: unknown): [Dict, string] {
  const parts = pyText(keys).split(delim === undefined ? ':' : pyText(delim));
  const last = parts.pop()!;
  let ptr = inDict as Dict;
  for (const k of parts) {
    if (!isMapping(ptr)) throw new TemplateRuntimeError(`Cannot traverse into ${pyText(k)}: not a dict`);
    if (!(k in ptr) || ptr[k] === null || ptr[k] === undefined) ptr[k] = {};
    ptr = ptr[k] as Dict;
  }
  if (!isMapping(ptr)) throw new TemplateRuntimeError(`Cannot set ${last}: the parent is not a dict`);
  return [ptr, last];
}

function itertoolsCombinations(pool: unknown[], r: number, replace: boolean): unknown[][] {
  const out: unknown[][] = [];
  const walk = (start: number, acc: unknown[]) => {
    if (acc.length === r) return void out.push(pyTuple(acc));
    for (let i = start; i < pool.length; i++) walk(replace ? i : i + 1, [...acc, pool[i]]);
  };
  walk(0, []);
  return out;
}

function itertoolsPermutations(pool: unknown[], r: number): unknown[][] {
  const out: unknown[][] = [];
  const walk = (used: boolean[], acc: unknown[]) => {
    if (acc.length === r) return void out.push(pyTuple(acc));
    pool.forEach((x, i) => {
      if (!used[i]) walk(Object.assign([...used], { [i]: true }), [...acc, x]);
    });
  };
  walk([], []);
  return out;
}

function readBlock(path: string, size: number): Buffer | undefined {
  try {
    const fd = openSync(path, 'r');
    try {
      const buf = Buffer.alloc(size);
      return buf.subarray(0, readSync(fd, buf, 0, size, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

/** salt.utils.stringutils.is_binary on bytes: NUL, or more than 30% outside text (UTF-8 bytes count as text when the data decodes). */
function isBinary(data: Buffer): boolean {
  if (data.length === 0) return false;
  if (data.includes(0)) return true;
  let utf8 = true;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    // A character cut at the end of the block still counts as UTF-8 (Salt's "unexpected end of data").
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(data.subarray(0, Math.max(0, data.length - 3)));
      utf8 = true;
    } catch {
      utf8 = false;
    }
  }
  let nontext = 0;
  for (const b of data) if (!((b >= 32 && b < 127) || [10, 13, 9, 12, 8].includes(b) || (utf8 && b >= 128 && b < 255))) nontext++;
  return nontext / data.length > 0.3;
}

/** salt.utils.dateutils.date_cast, for what brine can read: timestamps, ISO dates, now. */
function dateCast(v: unknown): Date {
  if (v === null || v === undefined) return new Date();
  const n = typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
  if (typeof n === 'number') return new Date(n * 1000);
  if (typeof n === 'string') {
    const iso = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/.test(n.trim())
      ? new Date(n.trim().replace(' ', 'T'))
      : undefined;
    if (iso && !Number.isNaN(iso.getTime())) return iso;
  }
  throw new TemplateRuntimeError(`Unable to parse ${pyText(v)}: brine reads timestamps and ISO dates (YYYY-MM-DD[ HH:MM[:SS]])`);
}

function which(exe: string): string | null {
  const test = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (exe.includes('/')) return test(exe) ? exe : null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) if (dir && test(join(dir, exe))) return join(dir, exe);
  return null;
}

function listFiles(dir: string): string[] {
  const out = new Set<string>([dir]);
  const walk = (d: string) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      out.add(p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return [...out];
}

function sample(value: unknown, size: number, seed: unknown): unknown[] {
  const items = [...iterate(value)];
  if (seed !== undefined && seed !== null)
    throw new TemplateRuntimeError(
      "brine's random_sample and random_shuffle do not take a seed: Python's seeded generator cannot be reproduced",
    );
  for (let i = items.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items.slice(0, size);
}

export function saltExtraFilters(): Record<string, Fn> {
  return {
    traverse: withKeywords(['key', 'default', 'delimiter'], (data: unknown, key: unknown, dflt: unknown = null, delim: unknown = ':') =>
      traverse(data, pyText(key), dflt, pyText(delim)),
    ),
    to_entries(data: unknown) {
      if (Array.isArray(data)) return data.map((value, key) => ({ key, value }));
      if (isMapping(data)) return Object.entries(data).map(([key, value]) => ({ key, value }));
      throw new TemplateRuntimeError('Input data must be a dict or list');
    },
    from_entries(entries: unknown) {
      const out: Dict = {};
      for (const e of iterate(entries)) {
        if (!isMapping(e)) throw new TemplateRuntimeError('Each entry must be a dict with key and value');
        const key = (e as Dict).key ?? (e as Dict).name ?? (e as Dict).k;
        out[pyText(key)] = (e as Dict).value ?? (e as Dict).v ?? null;
      }
      return out;
    },
    sorted_ignorecase: (v: unknown) => [...iterate(v)].sort((a, b) => pySortCompare(pyText(a).toLowerCase(), pyText(b).toLowerCase())),
    compare_lists(old: unknown, neu: unknown) {
      const ret: Dict = {};
      const o = iterate(old);
      const n = iterate(neu);
      const added = n.filter((x) => !o.some((y) => pyEquals(x, y)));
      const removed = o.filter((x) => !n.some((y) => pyEquals(x, y)));
      if (added.length) ret.new = added;
      if (removed.length) ret.old = removed;
      return ret;
    },
    compare_dicts(old: unknown, neu: unknown) {
      const o = (old ?? {}) as Dict;
      const n = (neu ?? {}) as Dict;
      const ret: Dict = {};
      for (const key of new Set([...Object.keys(n), ...Object.keys(o)])) {
        if (!(key in o)) ret[key] = { old: '', new: n[key] };
        else if (!(key in n)) ret[key] = { new: '', old: o[key] };
        else if (!pyEquals(n[key], o[key])) ret[key] = { old: o[key], new: n[key] };
      }
      return ret;
    },
    set_dict_key_value: withKeywords(['keys', 'value', 'delimiter'], function (d: unknown, keys: unknown, value: unknown, delim?: unknown) {
      const [ptr, last] = dictPointer(d, keys, delim);
      ptr[last] = value;
      return d;
    }),
    update_dict_key_value: withKeywords(
      ['keys', 'value', 'delimiter'],
      function (d: unknown, keys: unknown, value: unknown, delim?: unknown) {
        const [ptr, last] = dictPointer(d, keys, delim);
        if (ptr[last] === undefined || ptr[last] === null) ptr[last] = {};
        if (!isMapping(ptr[last])) throw new TemplateRuntimeError(`The last key contains a ${typeof ptr[last]}, which cannot update.`);
        if (!isMapping(value)) throw new TemplateRuntimeError('Cannot update a dict with something that is not a dict.');
        Object.assign(ptr[last] as Dict, value);
        return d;
      },
    ),
    append_dict_key_value: withKeywords(
      ['keys', 'value', 'delimiter'],
      function (d: unknown, keys: unknown, value: unknown, delim?: unknown) {
        const [ptr, last] = dictPointer(d, keys, delim);
        if (ptr[last] === undefined || ptr[last] === null) ptr[last] = [];
        if (!Array.isArray(ptr[last])) throw new TemplateRuntimeError('The last key does not contain a list, which cannot append.');
        (ptr[last] as unknown[]).push(value);
        return d;
      },
    ),
    extend_dict_key_value: withKeywords(
      ['keys', 'value', 'delimiter'],
      function (d: unknown, keys: unknown, value: unknown, delim?: unknown) {
        const [ptr, last] = dictPointer(d, keys, delim);
        if (ptr[last] === undefined || ptr[last] === null) ptr[last] = [];
        if (!Array.isArray(ptr[last])) throw new TemplateRuntimeError('The last key does not contain a list, which cannot extend.');
        (ptr[last] as unknown[]).push(...iterate(value));
        return d;
      },
    ),
    combinations: (v: unknown, r: unknown) => itertoolsCombinations(iterate(v), Number(r), false),
    combinations_with_replacement: (v: unknown, r: unknown) => itertoolsCombinations(iterate(v), Number(r), true),
    permutations: (v: unknown, r?: unknown) =>
      itertoolsPermutations(iterate(v), r === undefined || r === null ? iterate(v).length : Number(r)),
    product(...raw: unknown[]) {
      const { args, kwargs } = splitKeywords(raw);
      const pools = args.map((a) => iterate(a));
      const repeat = Number(kwargs.repeat ?? 1);
      const all = Array.from({ length: repeat }, () => pools).flat();
      return all.reduce<unknown[][]>((acc, pool) => acc.flatMap((t) => pool.map((x) => [...t, x])), [[]]).map((t) => pyTuple(t));
    },
    compress: (v: unknown, selectors: unknown) => {
      const sel = iterate(selectors);
      return iterate(v).filter((_x, i) => i < sel.length && truthy(sel[i]));
    },
    zip(...raw: unknown[]) {
      const lists = splitKeywords(raw).args.map((a) => iterate(a));
      const n = Math.min(...lists.map((l) => l.length));
      return Array.from({ length: n }, (_x, i) => pyTuple(lists.map((l) => l[i])));
    },
    zip_longest(...raw: unknown[]) {
      const { args, kwargs } = splitKeywords(raw);
      const lists = args.map((a) => iterate(a));
      const fill = kwargs.fillvalue ?? null;
      const n = Math.max(0, ...lists.map((l) => l.length));
      return Array.from({ length: n }, (_x, i) => pyTuple(lists.map((l) => (i < l.length ? l[i] : fill))));
    },
    // re.escape: every character but ASCII letters, digits and _ that is special gets a backslash.
    regex_escape: (v: unknown) => pyText(v).replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, '\\$&'),
    human_to_bytes: withKeywords(
      ['default_unit', 'handle_metric'],
      function (size: unknown, defaultUnit: unknown = 'B', handleMetric: unknown = false) {
        const m = /^([0-9.]*)\s*(.*)$/s.exec(pyText(size).trim())!;
        const unit = m[2].toLowerCase() || pyText(defaultUnit).toLowerCase();
        let value: number;
        if (/^\d+$/.test(m[1])) value = Number(m[1]);
        else if (/^(\d+\.?\d*|\.\d+)$/.test(m[1])) value = Number(m[1]);
        else return 0;
        let dec = false;
        if (/^[kmgtpezy]b$/.test(unit)) dec = truthy(handleMetric);
        else if (!/^(b|[kmgtpezy](ib)?)$/.test(unit)) return 0;
        const p = 'bkmgtpezy'.indexOf(unit[0]);
        return Math.trunc(value * (dec ? 10 ** (p * 3) : 2 ** (p * 10)));
      },
    ),
    is_empty(path: unknown) {
      try {
        return statSync(pyText(path)).size === 0;
      } catch {
        return false;
      }
    },
    is_bin_file(path: unknown) {
      try {
        if (!statSync(pyText(path)).isFile()) return false;
      } catch {
        return false;
      }
      const block = readBlock(pyText(path), 2048);
      return block === undefined ? false : isBinary(block);
    },
    is_text_file: withKeywords(['blocksize'], function (path: unknown, blocksize: unknown = 512) {
      const block = readBlock(pyText(path), Number(blocksize));
      return block === undefined ? false : !isBinary(block);
    }),
    list_files: (dir: unknown) => listFiles(pyText(dir)),
    file_hashsum: withKeywords(['form'], function (path: unknown, form: unknown = 'sha256') {
      const algo = pyText(form);
      try {
        return createHash(algo)
          .update(readFileSync(pyText(path)))
          .digest('hex');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT')
          throw new TemplateRuntimeError(`No such file or directory: '${pyText(path)}'`);
        throw new TemplateRuntimeError(`Invalid hash type: ${algo}`);
      }
    }),
    which: (exe: unknown) => which(pyText(exe)),
    skip: () => '',
    uuid: (v: unknown) => uuid5(pyText(v)),
    hmac: (s: unknown, secret: unknown, challenge: unknown) =>
      createHmac('sha256', pyText(secret)).update(pyText(s)).digest('base64') === pyText(challenge),
    hmac_compute: (s: unknown, secret: unknown) => createHmac('sha256', pyText(secret)).update(pyText(s)).digest('hex'),
    random_hash: (size: unknown = 9999999999, hashType: unknown = 'md5') =>
      createHash(pyText(hashType || 'md5'))
        .update(String(Math.floor(Math.random() * (Number(size) + 1))))
        .digest('hex'),
    rand_str: (size: unknown = 9999999999, hashType: unknown = 'md5') =>
      createHash(pyText(hashType || 'md5'))
        .update(String(Math.floor(Math.random() * (Number(size) + 1))))
        .digest('hex'),
    random_str: (size: unknown = 32) => randomBytes(Number(size)).toString('base64').slice(0, Number(size)),
    random_sample: withKeywords(['size', 'seed'], (v: unknown, size: unknown, seed?: unknown) => sample(v, Number(size), seed)),
    random_shuffle: withKeywords(['seed'], (v: unknown, seed?: unknown) => sample(v, iterate(v).length, seed)),
    method_call(obj: unknown, name: unknown, ...raw: unknown[]) {
      const fn = lookup(obj, pyText(name), true);
      return typeof fn === 'function' ? (fn as Fn)(...raw) : null;
    },
    dict_to_sls_yaml_params: withKeywords(['flow_style'], function (v: unknown, flowStyle: unknown = false) {
      const items = Object.entries((v ?? {}) as Dict).map(([k, val]) => ({ [k]: val }));
      let text = truthy(flowStyle) ? formatYaml(items, -1) : formatYaml(items);
      text = text.trim();
      return text.endsWith('\n...') ? text.slice(0, -4) : text;
    }),
    to_bytes: (v: unknown) => (v instanceof Uint8Array ? v : Buffer.from(pyText(v), 'utf8')),
    json_encode_list: (v: unknown) => (typeof v === 'string' ? [...v].map((c) => Buffer.from(c)) : v),
    json_decode_list: (v: unknown) => (typeof v === 'string' ? [...v] : v),
    json_encode_dict: (v: unknown) => v,
    json_decode_dict: (v: unknown) => v,
    strftime: withKeywords(['format'], (d: unknown = null, fmt: unknown = '%Y-%m-%d') => pyStrftime(dateCast(d), pyText(fmt))),
    date_format: withKeywords(['format'], (d: unknown = null, fmt: unknown = '%Y-%m-%d') => pyStrftime(dateCast(d), pyText(fmt))),
    check_whitelist_blacklist(value: unknown, ...raw: unknown[]) {
      const { args, kwargs } = splitKeywords(raw);
      const norm = (l: unknown, what: string): unknown[] => {
        if (!l || (Array.isArray(l) && l.length === 0)) return [];
        if (typeof l === 'string') return [l];
        if (Array.isArray(l)) return l;
        throw new TemplateRuntimeError(`Expecting iterable ${what}, but got ${typeof l} (${pyText(l)})`);
      };
      const white = norm(kwargs.whitelist ?? args[0], 'whitelist');
      const black = norm(kwargs.blacklist ?? args[1], 'blacklist');
      const matches = (list: unknown[]) => list.some((e) => typeof value === 'string' && exprMatch(value, pyText(e)));
      if (black.length && !white.length) return !matches(black);
      if (white.length && !black.length) return matches(white);
      if (black.length && white.length) return !matches(black) && matches(white);
      return true;
    },
    mysql_to_dict(data: unknown, key: unknown) {
      const ret: Dict = {};
      let headers = [''];
      const toNum = (s: string) => (/^-?\d+$/.test(s) ? Number(s) : /^-?\d*\.\d+$/.test(s) ? Number(s) : s);
      for (const line of iterate(data).map((l) => pyText(l))) {
        if (!line || line.startsWith('+')) continue;
        const comps = line.split('|').map((c) => c.trim());
        if (headers.length > 1) {
          const row: Dict = {};
          for (let f = 1; f < headers.length - 1; f++) row[headers[f]] = toNum(comps[f]);
          ret[pyText(row[pyText(key)])] = row;
        } else headers = comps;
      }
      return ret;
    },
    gen_mac: (prefix: unknown = 'AC:DE:48') =>
      `${pyText(prefix)}:${[0, 0, 0].map(() => randomInt(256).toString(16).toUpperCase().padStart(2, '0')).join(':')}`,
    mac_str_to_bytes(mac: unknown) {
      let s = pyText(mac);
      if (s.length === 17 || s.length === 12) s = s.replace(/[:-]/g, '');
      if (!/^[0-9a-fA-F]{12}$/.test(s)) throw new TemplateRuntimeError('Invalid MAC address');
      return Buffer.from(s, 'hex');
    },
    get_uid(user: unknown = null) {
      if (user === null || user === undefined) return process.getuid?.() ?? null;
      try {
        const line = readFileSync('/etc/passwd', 'utf8')
          .split('\n')
          .find((l) => l.split(':')[0] === pyText(user));
        return line ? Number(line.split(':')[2]) : null;
      } catch {
        return null;
      }
    },
    dns_check: () => {
      throw new TemplateRuntimeError(
        "brine's templates do not resolve names at render time: use salt['dnsutil.A'](name) or salt['network.get_hostname']() instead",
      );
    },
    http_query: () => {
      throw new TemplateRuntimeError("brine's templates do not make HTTP requests at render time: use salt['http.query'](url) instead");
    },
  };
}
