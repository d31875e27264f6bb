import type { CommandSpec, FlagSpec, ParsedFlags } from './flag-specs';

export interface QuickParsed<S extends CommandSpec> {
  flags: ParsedFlags<S['flags']>;
  /** The positional words in the order typed (the command's arguments first). */
  words: string[];
}

/**
 * Reads a plain command line with a command's flag specs, as oclif reads it: `--name value`,
 * `--name=value`, `-c value`, `-cvalue`, boolean flags, aliases, and `--` before words that
 * start with a dash. Anything else answers undefined and the command goes to oclif, which gives
 * its help or its usage error: `--help`, an unknown flag, a value not in the flag's options or not
 * an integer, a flag given twice, a value that looks like a flag, a missing argument, grouped
 * short flags (`-Lv`) and flags that take several values (oclif's rules for those are its own).
 */
export function quickParse<S extends CommandSpec>(spec: S, argv: readonly string[]): QuickParsed<S> | undefined {
  const byLong = new Map<string, [string, FlagSpec]>();
  const byChar = new Map<string, [string, FlagSpec]>();
  for (const [name, flag] of Object.entries(spec.flags) as [string, FlagSpec][]) {
    byLong.set(name, [name, flag]);
    for (const alias of flag.aliases ?? []) byLong.set(alias, [name, flag]);
    if (flag.char) byChar.set(flag.char, [name, flag]);
  }
  const flags: Record<string, unknown> = {};
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    let entry: [string, FlagSpec] | undefined;
    let inline: string | undefined;
    if (token.startsWith('--')) {
      const eq = token.indexOf('=');
      entry = byLong.get(eq < 0 ? token.slice(2) : token.slice(2, eq));
      if (eq >= 0) inline = token.slice(eq + 1);
    } else if (token.startsWith('-') && token.length > 1) {
      entry = byChar.get(token[1]);
      if (token.length > 2) inline = token.slice(2);
    } else {
      words.push(token);
      continue;
    }
    if (entry === undefined) return undefined;
    const [name, flag] = entry;
    if (name in flags || flag.multiple) return undefined;
    if (flag.type === 'boolean') {
      if (inline !== undefined) return undefined;
      flags[name] = true;
      continue;
    }
    if (inline?.startsWith('=') && !token.startsWith('--')) return undefined;
    const value = inline ?? argv[++i];
    if (value === undefined || (inline === undefined && value.startsWith('-') && value !== '-')) return undefined;
    if (flag.options && !flag.options.includes(value)) return undefined;
    if (flag.type === 'integer') {
      if (!/^-?\d+$/.test(value)) return undefined;
      flags[name] = Number(value);
    } else flags[name] = value;
  }
  if (words.length < spec.args.length) return undefined;
  for (const [name, flag] of Object.entries(spec.flags) as [string, FlagSpec][]) {
    if (name in flags) continue;
    if (flag.type === 'boolean') flags[name] = false;
    else if (flag.default !== undefined) flags[name] = flag.default;
  }
  return { flags: flags as ParsedFlags<S['flags']>, words };
}
