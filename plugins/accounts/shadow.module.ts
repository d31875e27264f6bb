import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CommandExecutionError, Fn, IGrains, IShell, InvocationError, Module, arg, inject, shadowEntries } from 'brine/plugin';
import { AccountTools } from './account-tools';

/** Salt's shadow.info: the entry's fields (-1 for an empty number field). */
export interface ShadowInfo {
  name: string;
  passwd: string;
  lstchg: number | '';
  min: number | '';
  max: number | '';
  warn: number | '';
  inact: number | '';
  expire: number | '';
}

/** What Salt answers for a user without a shadow entry: every field empty. */
const NO_ENTRY: ShadowInfo = { name: '', passwd: '', lstchg: '', min: '', max: '', warn: '', inact: '', expire: '' };

/** Salt's pycrypto algorithms, as `openssl passwd` spells them (blowfish has no openssl form). */
const OPENSSL_ALGORITHMS: Record<string, string> = { sha512: '-6', sha256: '-5', md5: '-1' };

const NAME = { name: arg.string({ nonEmpty: true, description: 'User to modify' }) };
const ROOT = { root: arg.string({ optional: true, description: 'Directory to chroot into' }) };

/** Days since 1970-01-01 (shadow's lstchg unit). */
const today = (): number => Math.floor(Date.now() / 86_400_000);

/**
 * Salt's `shadow` module for Linux (linux_shadow): reads /etc/shadow, changes aging with chage,
 * locks and unlocks with passwd, and sets hashes by rewriting the user's shadow line as Salt does.
 */
@Module('shadow', {
  doc: 'Manage the shadow file on Linux systems',
  file: 'linux_shadow',
  available: (grains) => grains.kernel === 'Linux',
})
export class ShadowModule {
  private readonly tools: AccountTools;

  constructor(
    @inject(IShell) shell: IShell,
    @inject(IGrains) private readonly grains: IGrains,
  ) {
    this.tools = new AccountTools(shell);
  }

  @Fn({
    summary: 'Return information for the specified user',
    examples: ["salt '*' shadow.info root"],
    args: { name: arg.string({ nonEmpty: true, description: 'User to get the information for' }), ...ROOT },
  })
  info({ name, root }: { name: string; root?: string }): ShadowInfo {
    const e = shadowEntries(root ?? '/').find((s) => s.name === name);
    return e ? { ...e } : { ...NO_ENTRY };
  }

  /** Salt's _set_attrib: chage `param value name` unless already so. */
  private async setAttrib(
    name: string,
    key: keyof ShadowInfo,
    value: unknown,
    param: string,
    root?: string,
    validate = true,
  ): Promise<boolean> {
    const pre = this.info({ name, root });
    if (!pre.name) return false;
    if (value === pre[key]) return true;
    const res = await this.tools.run(['chage', ...AccountTools.root(root), param, String(value), name]);
    if (!validate) return res.retcode === 0;
    return this.info({ name, root })[key] === value;
  }

  @Fn({
    summary: 'Set the number of days of inactivity after a password has expired before the account is locked',
    examples: ["salt '*' shadow.set_inactdays username 7"],
    args: { ...NAME, inactdays: arg.integer(), ...ROOT },
  })
  set_inactdays({ name, inactdays, root }: { name: string; inactdays: number; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'inact', inactdays, '-I', root);
  }

  @Fn({
    summary: 'Set the maximum number of days during which a password is valid',
    examples: ["salt '*' shadow.set_maxdays username 90"],
    args: { ...NAME, maxdays: arg.integer(), ...ROOT },
  })
  set_maxdays({ name, maxdays, root }: { name: string; maxdays: number; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'max', maxdays, '-M', root);
  }

  @Fn({
    summary: 'Set the minimum number of days between password changes',
    examples: ["salt '*' shadow.set_mindays username 7"],
    args: { ...NAME, mindays: arg.integer(), ...ROOT },
  })
  set_mindays({ name, mindays, root }: { name: string; mindays: number; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'min', mindays, '-m', root);
  }

  @Fn({
    summary: 'Set the number of days of warning before a password change is required',
    examples: ["salt '*' shadow.set_warndays username 7"],
    args: { ...NAME, warndays: arg.integer(), ...ROOT },
  })
  set_warndays({ name, warndays, root }: { name: string; warndays: number; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'warn', warndays, '-W', root);
  }

  @Fn({
    summary: 'Set the date the password was last changed (days since the epoch, or YYYY-MM-DD)',
    examples: ["salt '*' shadow.set_date username 0"],
    args: { ...NAME, date: arg.any(), ...ROOT },
  })
  set_date({ name, date, root }: { name: string; date: unknown; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'lstchg', date, '-d', root, false);
  }

  @Fn({
    summary: 'Set the date the account expires (days since the epoch, YYYY-MM-DD, or -1 for never)',
    examples: ["salt '*' shadow.set_expire username -1"],
    args: { ...NAME, expire: arg.any(), ...ROOT },
  })
  set_expire({ name, expire, root }: { name: string; expire: unknown; root?: string }): Promise<boolean> {
    return this.setAttrib(name, 'expire', expire, '-E', root, false);
  }

  @Fn({ summary: 'Return a list of all shadow users', examples: ["salt '*' shadow.list_users"], args: ROOT })
  list_users({ root }: { root?: string }): string[] {
    return shadowEntries(root ?? '/')
      .map((e) => e.name)
      .sort();
  }

  @Fn({ summary: 'The default password hash used by set_password', examples: ["salt '*' shadow.default_hash"] })
  default_hash(): string {
    return '!';
  }

  @Fn({
    summary: 'Generate a hashed password for shadow.set_password (crypt of sha512, sha256 or md5)',
    examples: [
      "salt '*' shadow.gen_password 'I_am_password'",
      "salt '*' shadow.gen_password 'I_am_password' crypt_salt='I_am_salt' algorithm=sha256",
    ],
    args: {
      password: arg.string({ description: 'Plaintext password to be hashed' }),
      crypt_salt: arg.string({ optional: true, description: 'Crypt salt (random when left out)' }),
      algorithm: arg.string({ default: 'sha512', description: 'sha512, sha256 or md5' }),
    },
  })
  async gen_password({ password, crypt_salt, algorithm }: { password: string; crypt_salt?: string; algorithm: string }): Promise<string> {
    const flag = OPENSSL_ALGORITHMS[algorithm];
    if (!flag) {
      throw new InvocationError(
        `Cannot hash using '${algorithm}' hash algorithm. Supported algorithms are: ${Object.keys(OPENSSL_ALGORITHMS).join(', ')}.`,
      );
    }
    // The password goes through stdin, never the command line (other users can read argv).
    const cmd = [await this.tools.which('openssl'), 'passwd', flag, ...(crypt_salt ? ['-salt', crypt_salt] : []), '-stdin'];
    const res = await this.tools.run(cmd, `${password}\n`);
    if (res.retcode !== 0) throw new CommandExecutionError(res.stderr.trim());
    return res.stdout.trim();
  }

  @Fn({
    summary: 'Delete the password from name user',
    examples: ["salt '*' shadow.del_password username"],
    args: { ...NAME, ...ROOT },
  })
  async del_password({ name, root }: { name: string; root?: string }): Promise<boolean> {
    await this.tools.run(['passwd', ...AccountTools.root(root), '-d', name]);
    const after = this.info({ name, root });
    return !after.passwd && after.name === name;
  }

  @Fn({
    summary: 'Lock the password from specified user',
    examples: ["salt '*' shadow.lock_password username"],
    args: { ...NAME, ...ROOT },
  })
  async lock_password({ name, root }: { name: string; root?: string }): Promise<boolean> {
    const pre = this.info({ name, root });
    if (!pre.name) return false;
    if (pre.passwd.startsWith('!')) return true;
    await this.tools.run(['passwd', ...AccountTools.root(root), '-l', name]);
    return this.info({ name, root }).passwd.startsWith('!');
  }

  @Fn({
    summary: 'Unlock the password from name user',
    examples: ["salt '*' shadow.unlock_password username"],
    args: { ...NAME, ...ROOT },
  })
  async unlock_password({ name, root }: { name: string; root?: string }): Promise<boolean> {
    const pre = this.info({ name, root });
    if (!pre.name) return false;
    if (!pre.passwd.startsWith('!')) return true;
    await this.tools.run(['passwd', ...AccountTools.root(root), '-u', name]);
    return !this.info({ name, root }).passwd.startsWith('!');
  }

  @Fn({
    summary: 'Set the password for a named user; the password must be a properly defined hash (see shadow.gen_password)',
    description: 'use_usermod=True sets it with usermod -p instead of rewriting the shadow file.',
    examples: ["salt '*' shadow.set_password root '$1$UYCIxa628.9qXjpQCjM4a..'"],
    args: { ...NAME, password: arg.string(), use_usermod: arg.boolean({ default: false }), ...ROOT },
  })
  async set_password(a: { name: string; password: string; use_usermod: boolean; root?: string }): Promise<boolean | Record<string, never>> {
    // Salt asks `id` (the system's users, not root=) whether the user exists.
    if ((await this.tools.run(['id', a.name])).retcode !== 0) return false;
    if (a.use_usermod) {
      await this.tools.run(['usermod', ...AccountTools.root(a.root), '-p', a.password, a.name]);
      return this.info({ name: a.name, root: a.root }).passwd === a.password;
    }
    const file = this.grains.get('os') === 'ALT' ? `etc/tcb/${a.name}/shadow` : 'etc/shadow';
    const path = join(a.root ?? '/', file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch {
      return {};
    }
    const lstchg = String(today());
    let found = false;
    const lines = text.split(/(?<=\n)/).map((line) => {
      const comps = line.trim().split(':').slice(0, 9);
      if (comps[0] !== a.name) return line;
      while (comps.length < 9) comps.push('');
      found = true;
      comps[1] = a.password;
      comps[2] = lstchg;
      return `${comps.join(':')}\n`;
    });
    if (!found) lines.push(`${a.name}:${a.password}:${lstchg}::::::\n`);
    await writeFile(path, lines.join(''));
    return this.info({ name: a.name, root: a.root }).passwd === a.password;
  }
}
