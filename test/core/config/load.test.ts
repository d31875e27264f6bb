import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadMasterConfig, loadMinionConfig } from '../../../src/core/config';
import { ConfigError } from '../../../src/core/errors';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brine-config-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const write = (name: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
  fs.writeFileSync(path.join(dir, name), text);
};

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('defaults', () => {
  it('a missing master file gives Salt 3007 defaults', () => {
    const { config, warnings } = loadMasterConfig(dir);
    expect(warnings).toEqual([]);
    expect(config).toMatchObject({
      interface: '0.0.0.0',
      publish_port: 4505,
      ret_port: 4506,
      auto_accept: false,
      open_mode: false,
      keysize: 2048,
      timeout: 5,
      gather_job_timeout: 10,
      worker_threads: 5,
      keep_jobs: 24,
      nodegroups: {},
      file_roots: { base: ['/srv/salt'] },
      module_dirs: [],
      log_level: 'warning',
      log_level_logfile: 'warning',
      publish_session: 86400,
      pub_hwm: 1000,
      minion_data_cache: true,
      sign_pub_messages: true,
      show_timeout: true,
      pki_dir: '/etc/salt/pki/master',
      cachedir: '/var/cache/salt/master',
      sock_dir: '/var/run/salt/master',
      log_file: '/var/log/salt/master',
      pidfile: '/var/run/salt-master.pid',
      autosign_file: '/etc/salt/autosign.conf',
      extension_modules: '/var/cache/salt/master/extmods',
      conf_file: path.join(dir, 'master'),
      config_dir: dir,
    });
  });

  it('an empty minion file gives minion defaults', () => {
    write('minion', '');
    const { config } = loadMinionConfig(dir);
    expect(config).toMatchObject({
      master: 'salt',
      master_port: 4506,
      id: null,
      minion_id_caching: true,
      minion_id_lowercase: false,
      minion_id_remove_domain: false,
      grains: {},
      acceptance_wait_time: 10,
      acceptance_wait_time_max: 0,
      auth_tries: 7,
      auth_timeout: 5,
      random_reauth_delay: 10,
      recon_default: 1000,
      recon_max: 10000,
      recon_randomize: true,
      return_retry_timer: 5,
      return_retry_timer_max: 10,
      return_retry_tries: 3,
      rejected_retry: false,
      keysize: 2048,
      pki_dir: '/etc/salt/pki/minion',
      cachedir: '/var/cache/salt/minion',
      sock_dir: '/var/run/salt/minion',
      log_file: '/var/log/salt/minion',
      pidfile: '/var/run/salt-minion.pid',
    });
  });
});

describe('files and overrides', () => {
  it('reads YAML 1.1 values as Salt does', () => {
    write('master', 'auto_accept: yes\npublish_port: "5505"\nnodegroups:\n  web: L@web1,web2\nkeep_jobs: 012\n');
    const { config } = loadMasterConfig(dir);
    expect(config.auto_accept).toBe(true);
    expect(config.publish_port).toBe(5505);
    expect(config.nodegroups).toEqual({ web: 'L@web1,web2' });
    expect(config.keep_jobs).toBe(12);
  });

  it('merges master.d/*.conf in name order over the main file, then the overrides', () => {
    write('master', 'timeout: 7\nworker_threads: 3\nfile_roots:\n  base: [/a]\n');
    write('master.d/20-b.conf', 'timeout: 9\nfile_roots:\n  base: [/c]\n');
    write('master.d/10-a.conf', 'timeout: 8\nfile_roots:\n  base: [/b]\n  dev: [/d]\n');
    write('master.d/ignored.txt', 'timeout: 99\n');
    const { config } = loadMasterConfig(dir, { worker_threads: 12 });
    expect(config.timeout).toBe(9);
    expect(config.worker_threads).toBe(12);
    expect(config.file_roots).toEqual({ base: ['/b', '/c'], dev: ['/d'] });
  });

  it('log_level_logfile follows log_level unless set', () => {
    expect(loadMinionConfig(dir, { log_level: 'DEBUG' }).config.log_level_logfile).toBe('debug');
    write('minion', 'log_level: info\nlog_level_logfile: garbage\n');
    const { config } = loadMinionConfig(dir);
    expect([config.log_level, config.log_level_logfile]).toEqual(['info', 'garbage']);
  });
});

describe('root_dir', () => {
  it('prefixes every path option', () => {
    write('master', 'root_dir: /tmp/x\ncachedir: /tmp/x/already/here\nsock_dir: relative/sock\n');
    const { config } = loadMasterConfig(dir);
    expect(config.pki_dir).toBe('/tmp/x/etc/salt/pki/master');
    expect(config.cachedir).toBe('/tmp/x/already/here');
    expect(config.sock_dir).toBe('/tmp/x/relative/sock');
    expect(config.log_file).toBe('/tmp/x/var/log/salt/master');
    expect(config.pidfile).toBe('/tmp/x/var/run/salt-master.pid');
    expect(config.autosign_file).toBe('/tmp/x/etc/salt/autosign.conf');
    expect(config.extension_modules).toBe('/tmp/x/already/here/extmods');
    expect(config.file_roots).toEqual({ base: ['/srv/salt'] });
  });

  it('leaves a syslog log_file alone', () => {
    const { config } = loadMinionConfig(dir, { root_dir: '/r', log_file: 'udp://loghost:514' });
    expect(config.log_file).toBe('udp://loghost:514');
    expect(config.pki_dir).toBe('/r/etc/salt/pki/minion');
  });
});

describe('problems', () => {
  it('warns about an unknown option with its file, line and a suggestion, and keeps it', () => {
    const file = path.join(dir, 'master');
    write('master', 'interface: 127.0.0.1\n\npublish_prot: 4505\nmy_own_thing: 1\n');
    const { config, warnings } = loadMasterConfig(dir);
    expect(warnings).toEqual([
      `Unknown option 'publish_prot' in ${file} (line 3); did you mean 'publish_port'?`,
      `Unknown option 'my_own_thing' in ${file} (line 4)`,
    ]);
    expect(config.publish_prot).toBe(4505);
  });

  it('names the file, option and expectation for a bad value', () => {
    write('master', 'publish_port: abc\n');
    const err = configError(() => loadMasterConfig(dir));
    expect(err.code).toBe('BAD_CONFIG');
    expect(err.message).toBe(`${path.join(dir, 'master')} (line 1): publish_port must be a port number (1-65535), got 'abc'`);
  });

  it.each([
    ['auto_accept: maybe\n', 'auto_accept must be true or false'],
    ['publish_port: 70000\n', 'publish_port must be a port number'],
    ['log_level: loud\n', 'log_level must be one of'],
    ['nodegroups: [a]\n', 'nodegroups must be a mapping'],
    ['module_dirs: /x\n', 'module_dirs must be a list of strings'],
    ['timeout: soon\n', 'timeout must be a number'],
    [
      'publish_signing_algorithm: PKCS1v15-SHA256\n',
      "publish_signing_algorithm must be one of PKCS1v15-SHA1, PKCS1v15-SHA224, got 'PKCS1v15-SHA256'",
    ],
  ])('refuses %j', (text, message) => {
    write('master', text);
    const err = configError(() => loadMasterConfig(dir));
    expect(err.code).toBe('BAD_CONFIG');
    expect(err.message).toContain(message);
  });

  it("reads Salt's signed master public key options, with Salt's defaults", () => {
    write('master', '');
    expect(loadMasterConfig(dir).config).toMatchObject({
      master_sign_pubkey: false,
      master_sign_key_name: 'master_sign',
      master_use_pubkey_signature: false,
      master_pubkey_signature: 'master_pubkey_signature',
    });
    write('minion', 'verify_master_pubkey_sign: True\nalways_verify_signature: yes\n');
    expect(loadMinionConfig(dir).config).toMatchObject({
      verify_master_pubkey_sign: true,
      always_verify_signature: true,
      master_sign_key_name: 'master_sign',
    });
    write('master', 'master_sign_pubkey: sometimes\n');
    expect(configError(() => loadMasterConfig(dir)).message).toContain('master_sign_pubkey');
  });

  it("refuses Salt's sudo executor, other file server backends and multi-master modes, which brine does not build, rather than ignore them", () => {
    write('master', 'fileserver_backend: [roots, gitfs]\n');
    expect(configError(() => loadMasterConfig(dir)).message).toContain(
      "fileserver_backend must be [roots] (brine's file server serves file_roots only; gitfs, s3fs and the others are not built)",
    );
    write('master', 'fileserver_backend: roots\n');
    expect(loadMasterConfig(dir).config.fileserver_backend).toEqual(['roots']);
    write('minion', 'master_type: failover\n');
    expect(configError(() => loadMinionConfig(dir)).message).toContain("master_type must be 'str'");
    write('minion', 'sudo_user: root\n');
    expect(configError(() => loadMinionConfig(dir)).message).toContain(
      "sudo_user must be empty (brine does not run jobs through sudo: run salt-minion as the user the jobs should run as), got 'root'",
    );
  });

  it('takes module filters as lists of names (test/plugins/loader/module-filter.test.ts applies them)', () => {
    write('minion', 'disable_modules: [cmdmod]\nwhitelist_modules: [test, cmd]\ndisable_states: [pkg]\n');
    const { config } = loadMinionConfig(dir);
    expect([config.disable_modules, config.whitelist_modules, config.disable_states]).toEqual([['cmdmod'], ['test', 'cmd'], ['pkg']]);
    write('minion', 'disable_modules: cmdmod\n');
    expect(configError(() => loadMinionConfig(dir)).message).toContain('disable_modules must be a list of strings');
  });

  it("checks a minion's encryption_algorithm and signing_algorithm against Salt's names", () => {
    write('minion', 'encryption_algorithm: OAEP-SHA256\n');
    expect(configError(() => loadMinionConfig(dir)).message).toContain(
      "encryption_algorithm must be one of OAEP-SHA1, OAEP-SHA224, got 'OAEP-SHA256'",
    );
    write('minion', 'signing_algorithm: PKCS1v15-SHA224\nencryption_algorithm: OAEP-SHA224\n');
    expect(loadMinionConfig(dir).config).toMatchObject({ signing_algorithm: 'PKCS1v15-SHA224', encryption_algorithm: 'OAEP-SHA224' });
  });

  it('names the include file that holds a bad value', () => {
    write('minion.d/x.conf', 'master_port: -1\n');
    expect(configError(() => loadMinionConfig(dir)).message).toContain(path.join(dir, 'minion.d/x.conf'));
  });

  it('checks overrides too', () => {
    expect(configError(() => loadMinionConfig(dir, { log_level: 'nope' })).message).toContain('command line');
  });

  it('reports YAML syntax errors with file and line', () => {
    write('master', 'interface: 0.0.0.0\nnodegroups:\n  web: [a, b\n');
    const err = configError(() => loadMasterConfig(dir));
    expect(err.code).toBe('BAD_YAML');
    expect(err.message).toMatch(
      new RegExp(`^${path.join(dir, 'master').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(line \\d+\\): invalid YAML`),
    );
  });

  it('refuses duplicate keys and a file that is not a mapping', () => {
    write('master', 'timeout: 1\ntimeout: 2\n');
    expect(configError(() => loadMasterConfig(dir)).code).toBe('BAD_YAML');
    write('master', '- a\n- b\n');
    expect(configError(() => loadMasterConfig(dir)).code).toBe('BAD_CONFIG');
  });

  it('refuses an empty config dir argument', () => {
    expect(configError(() => loadMasterConfig('')).code).toBe('BAD_CONFIG');
  });
});
