/**
 * Salt's `permissive_pki_access` check: a daemon does not start when its private key or its pki
 * directory can be read by group or others, since anyone reading the key can impersonate it.
 */
import { statSync } from 'node:fs';
import { ConfigError } from '../errors';

function modeOf(path: string): number | undefined {
  try {
    return statSync(path).mode & 0o777;
  } catch {
    return undefined; // not there yet: it is created with the right mode
  }
}

/**
 * Throws `ConfigError PKI_PERMISSIONS` naming the first of `pkiDir` (group/other read or write)
 * and `privateKey` (group/other any access) that is too open, with the `chmod` to run.
 */
export function checkPkiPermissions(pkiDir: string, privateKey: string, permissive: boolean): void {
  if (permissive) return;
  const dirMode = modeOf(pkiDir);
  if (dirMode !== undefined && (dirMode & 0o066) !== 0) {
    throw new ConfigError(
      'PKI_PERMISSIONS',
      `the pki directory ${pkiDir} is open to group or others (mode ${dirMode.toString(8).padStart(4, '0')})`,
      {
        hint: `run 'chmod 700 ${pkiDir}', or set permissive_pki_access: True`,
      },
    );
  }
  const keyMode = modeOf(privateKey);
  if (keyMode !== undefined && (keyMode & 0o077) !== 0) {
    throw new ConfigError(
      'PKI_PERMISSIONS',
      `the private key ${privateKey} is readable by group or others (mode ${keyMode.toString(8).padStart(4, '0')})`,
      {
        hint: `run 'chmod 600 ${privateKey}', or set permissive_pki_access: True`,
      },
    );
  }
}
