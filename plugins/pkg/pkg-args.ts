/** How every pkg backend reads its name/pkgs/version arguments, as Salt's `pkg_resource.parse_targets` does. */

/** `pkgs` items: a name, or a one-key {name: version} map. */
export function pkgTargets(name: string | undefined, pkgs: unknown[] | undefined, version: unknown): Record<string, string | null> {
  if (pkgs && pkgs.length > 0) {
    const ret: Record<string, string | null> = {};
    for (const p of pkgs) {
      if (typeof p === 'object' && p !== null && !Array.isArray(p)) {
        const [k, v] = Object.entries(p)[0] ?? [];
        if (k !== undefined) ret[k] = v === null || v === undefined ? null : String(v);
      } else ret[String(p)] = null;
    }
    return ret;
  }
  if (name)
    return Object.fromEntries(name.split(',').map((n) => [n.trim(), version === undefined || version === null ? null : String(version)]));
  return {};
}

/**
 * Salt's CommandExecutionError text with `info={"errors": [...], "changes": ...}` as a state shows
 * it (`strerror_without_changes`): the message, then the errors as the nested outputter lists them.
 * The changes travel in the error's `info`.
 */
export function withErrors(message: string, errors: string[]): string {
  const prefix = /[.?!]$/.test(message) ? message : `${message}.`;
  return `${prefix} Additional info follows:\n\nerrors:\n${errors.map((e) => `    - ${e.trim()}`).join('\n')}`;
}
