/**
 * Running rpm for the RHEL-family modules (`pkg` on dnf/yum and `lowpkg`): the `root` option, the
 * list options Salt accepts as a list or a comma-separated string, and `rpm -V`, which Salt's
 * `pkg.verify` hands to `lowpkg.verify` and both modules share here.
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { CommandExecutionError, InvocationError, type IShell } from 'brine/plugin';
import { parseRpmVerify, type RpmVerifyEntry } from './rpm-parse';

/** Salt's reading of `ignore_types`, `verify_options` and `attr`: a list, or a comma-separated string. */
export function listOption(kwargs: Record<string, unknown>, key: string): string[] {
  const v = kwargs[key];
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === 'string') return v.split(',').map((x) => x.trim());
  throw new InvocationError(`${key} must be a list or a comma-separated string`);
}

/**
 * `rpm`, with `--root <root>` when the call names a root. rpm itself refuses a relative root but
 * creates a missing one, an empty database included, and answers from it as if nothing were
 * installed: a root that is not an existing directory is refused here instead.
 */
export function rpmCommand(kwargs: Record<string, unknown>): string[] {
  if (!kwargs.root) return ['rpm'];
  const dir = String(kwargs.root);
  if (!isAbsolute(dir) || !statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    throw new InvocationError(
      `root must be the absolute path of an existing directory (the top of the system whose rpm database to read), not '${dir}'`,
    );
  return ['rpm', '--root', dir];
}

/** The documentation of `pkg.verify` and `lowpkg.verify` (the examples name the module). */
export const RPM_VERIFY_DOCS = {
  summary: 'Check installed files against the rpm database (rpm -V): {path: {mismatch: [...], type}} for each altered file',
  description:
    'No names: every package (rpm -Va). ignore_types leaves out files of those rpm types (config, doc, ghost, ' +
    'license, readme); verify_options are rpm flags without their dashes (nodeps, nosize, nomode, ...); root: ' +
    'check the packages installed under that directory. A missing file is {missing: True, type}.',
};

/**
 * Salt's `lowpkg.verify` (and so `pkg.verify`): `rpm -V` of the named packages, or `rpm -Va`,
 * as {path: {mismatch: [...], type}} for each altered file. `ignore_types` leaves out files of
 * those rpm types; `verify_options` are rpm flags without their dashes; `root` is rpm's --root.
 */
export async function rpmVerify(shell: IShell, names: unknown[], kwargs: Record<string, unknown>): Promise<Record<string, RpmVerifyEntry>> {
  const ignoreTypes = listOption(kwargs, 'ignore_types');
  const verifyOptions = listOption(kwargs, 'verify_options');
  const cmd = rpmCommand(kwargs);
  cmd.push(...verifyOptions.map((x) => `--${x}`));
  if (names.length > 0) cmd.push('-V', ...names.map(String));
  else cmd.push('-Va');
  const res = await shell.run(cmd, { pythonShell: false });
  // rpm exits 1 for any altered file: only an empty stdout with a failure is an error.
  if (!res.stdout.trim() && res.retcode !== 0)
    throw new CommandExecutionError(`Failed to verify package(s)${res.stderr ? `: ${res.stderr.trim()}` : ''}`);
  const { files, notInstalled } = parseRpmVerify(res.stdout, ignoreTypes);
  if (notInstalled.length > 0)
    throw new CommandExecutionError(
      `Failed to verify package(s): ${notInstalled.join('; ')}. Name only installed packages (pkg.list_pkgs)`,
    );
  return files;
}
