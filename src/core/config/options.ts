/**
 * Option names, types and defaults of the master and minion config, as Salt 3007's
 * DEFAULT_MASTER_OPTS / DEFAULT_MINION_OPTS (salt/config/__init__.py) for the options brine uses
 * or users commonly set. `path: true` marks options that root_dir prefixes.
 */
import type { OptionType } from './option-types';
import { DEFAULT_CONSOLE_FORMAT, DEFAULT_FILE_FORMAT } from '../log/logging';

export interface OptionSpec {
  type: OptionType;
  default: unknown;
  /** root_dir is prepended (salt.config.prepend_root_dir). */
  path?: boolean;
}

const o = (type: OptionType, def: unknown, path = false): OptionSpec => (path ? { type, default: def, path } : { type, default: def });

/** Options both daemons read. */
const COMMON: Record<string, OptionSpec> = {
  root_dir: o('path', '/'),
  conf_file: o('path?', null),
  config_dir: o('path?', null),
  default_include: o('str', ''),
  include: o('str|strlist', []),
  user: o('str', 'root'),
  transport: o('transport', 'zeromq'),
  /**
   * brine: what speaks ZeroMQ on the publish and request ports, the master's ports and the
   * minion's connections to them: 'node' (ZMTP in plain Node) or 'libzmq'.
   */
  zmq_ports: o('str', 'node'),
  ipv6: o('bool', false),
  hash_type: o('hash', 'sha256'),
  keysize: o('int', 2048),
  file_roots: o('dict', { base: ['/srv/salt'] }),
  pillar_roots: o('dict', { base: ['/srv/pillar'] }),
  // Rendering and pillar (both daemons: a minion with file_client local compiles its own pillar).
  renderer: o('str', 'jinja|yaml'),
  state_top: o('str', 'top.sls'),
  pillarenv: o('str?', null),
  pillar_opts: o('bool', false),
  pillar_source_merging_strategy: o('str', 'smart'),
  pillar_merge_lists: o('bool', false),
  pillar_includes_override_sls: o('bool', false),
  pillar_safe_render_error: o('bool', true),
  top_file_merging_strategy: o('str', 'merge'),
  env_order: o('strlist', []),
  default_top: o('str', 'base'),
  ext_pillar: o('any', []),
  ext_pillar_first: o('bool', false),
  module_dirs: o('strlist', []),
  extension_modules: o('path?', null, true),
  log_level: o('loglevel', 'warning'),
  log_level_logfile: o('loglevel', null),
  log_fmt_console: o('str', DEFAULT_CONSOLE_FORMAT.format),
  log_fmt_logfile: o('str', DEFAULT_FILE_FORMAT.format),
  log_datefmt: o('str', DEFAULT_CONSOLE_FORMAT.datefmt),
  log_datefmt_logfile: o('str', DEFAULT_FILE_FORMAT.datefmt),
  /** A level per logger name (`salt.transport: debug`), for it and the loggers below it. */
  log_granular_levels: o('dict', {}),
  color: o('bool', true),
  output: o('str?', null),
  output_indent: o('any', null),
  cache_jobs: o('bool', false),
  state_verbose: o('bool', true),
  show_timeout: o('bool', true),
  show_jid: o('bool', false),
  sign_pub_messages: o('bool', true),
  zmq_monitor: o('bool', false),
  tcp_keepalive: o('bool', true),
  tcp_keepalive_idle: o('int', 300),
  ipc_mode: o('str', 'ipc'),
  /** Start even when the pki dir or the private key is readable by group or others (Salt's option). */
  permissive_pki_access: o('bool', false),
};

export const MASTER_OPTIONS: Record<string, OptionSpec> = {
  ...COMMON,
  default_include: o('str', 'master.d/*.conf'),
  /** brine: folders holding brine-plugin-* packages whose runners and wheel modules the master loads. */
  plugin_dirs: o('strlist', []),
  id: o('str?', null),
  interface: o('str', '0.0.0.0'),
  publish_port: o('port', 4505),
  ret_port: o('port', 4506),
  pki_dir: o('path', '/etc/salt/pki/master', true),
  cachedir: o('path', '/var/cache/salt/master', true),
  sock_dir: o('path', '/var/run/salt/master', true),
  log_file: o('path', '/var/log/salt/master', true),
  key_logfile: o('path', '/var/log/salt/key', true),
  pidfile: o('path', '/var/run/salt-master.pid', true),
  autosign_file: o('path', '/etc/salt/autosign.conf', true),
  autoreject_file: o('path', '/etc/salt/autoreject.conf', true),
  autosign_grains_dir: o('path', '/etc/salt/autosign_grains', true),
  token_dir: o('path', '/var/cache/salt/master/tokens', true),
  syndic_dir: o('path', '/var/cache/salt/master/syndics', true),
  sqlite_queue_dir: o('path', '/var/cache/salt/master/queues', true),
  auto_accept: o('bool', false),
  open_mode: o('bool', false),
  timeout: o('number', 5),
  gather_job_timeout: o('number', 10),
  worker_threads: o('int', 5),
  keep_jobs: o('int', 24),
  /** Seconds between the master's maintenance sweeps (the job cache cleaner). */
  loop_interval: o('number', 60),
  keep_jobs_seconds: o('int', 86400),
  job_cache: o('bool', true),
  publish_signing_algorithm: o('signing', 'PKCS1v15-SHA1'),
  /** Returns without a minion's signature (minion_sign_messages) are dropped. */
  require_minion_sign_messages: o('bool', false),
  /** Returns whose minion signature does not verify are dropped (else logged and taken). */
  drop_messages_signature_fail: o('bool', false),
  master_job_cache: o('str', 'local_cache'),
  /** brine: the PostgreSQL job cache's connection ({host, port, user, pass, db}). */
  postgres: o('dict?', null),
  /** brine: SQLite job cache durability, 'normal' (survives kill -9) or 'full' (survives power loss). */
  job_cache_synchronous: o('str', 'normal'),
  minion_data_cache: o('bool', true),
  /** The file server's chunk size for _serve_file (Salt's default). */
  file_buffer_size: o('int', 262144),
  nodegroups: o('dict', {}),
  publish_session: o('int', 86400),
  pub_hwm: o('int', 1000),
  zmq_backlog: o('int', 1000),
  max_open_files: o('int', 100000),
  max_minions: o('int', 0),
  /** brine: longest request (bytes) the request port decodes; longer ones get "bad load". */
  max_request_size: o('int', 64 * 1024 * 1024),
  /** brine: pending keys kept at most; new ids beyond are answered "pending" without a file. */
  max_pending_keys: o('int', 1000),
  /** brine: `_auth` requests per connection per second; more get "bad load". */
  auth_rate_limit: o('int', 10),
  /** brine: new request-port connections per address per second; more are refused at the handshake. 0 = off. */
  connection_rate_limit: o('int', 100),
  /** Seconds an aes request's ts may be away from the master's clock; replays within it are refused. 0 = off. */
  request_server_ttl: o('int', 300),
  con_cache: o('bool', false),
  preserve_minion_cache: o('bool', false),
  rotate_aes_key: o('bool', true),
  requested_protocol_version: o('any', null),
  publisher_acl: o('dict', {}),
  publisher_acl_blacklist: o('dict', {}),
  external_auth: o('dict', {}),
  client_acl_verify: o('bool', true),
  ping_on_rotate: o('bool', false),
  runner_dirs: o('strlist', []),
  presence_events: o('bool', false),
  batch_safe_limit: o('int', 0),
  batch_safe_size: o('int', 8),
  /** Sign the master key in every accepted sign-in with master_sign.pem (master/pubkey-signature.ts). */
  master_sign_pubkey: o('bool', false),
  master_sign_key_name: o('str', 'master_sign'),
  /** With master_sign_pubkey: send the signature in this pki_dir file instead of making one. */
  master_use_pubkey_signature: o('bool', false),
  master_pubkey_signature: o('str', 'master_pubkey_signature'),
  cli_summary: o('bool', false),
  enable_gpu_grains: o('bool', false),
  event_return: o('str|strlist', ''),
  /** Events queued before they go to the event returners (0: each at once). */
  event_return_queue: o('int', 0),
  event_return_whitelist: o('strlist', []),
  event_return_blacklist: o('strlist', []),
  /** Accept files that minions push with cp.push, under cachedir/minions/<id>/files. */
  file_recv: o('bool', false),
  /** The largest file cp.push may send, in MiB. */
  file_recv_max_size: o('int', 100),
  /** Bytes of a file per cp.recv_chunked job of salt-cp --chunked (before compression). */
  salt_cp_chunk_size: o('int', 98304),
  /** Salt's file server backends: roots only (file_roots). */
  fileserver_backend: o('roots-only', ['roots']),
  /** salt-api (rest_cherrypy) settings; salt-api refuses to start without them. */
  rest_cherrypy: o('dict?', null),
  /** Salt >= 3006: the netapi clients salt-api may run (none by default). */
  netapi_enable_clients: o('strlist', []),
  netapi_allow_raw_shell: o('bool', false),
  /** Seconds an eauth token lives. */
  token_expire: o('int', 43200),
  token_expire_user_override: o('any', false),
  keep_acl_in_token: o('bool', false),
  permissive_acl: o('bool', false),
  eauth_tokens: o('str', 'localfs'),
  api_logfile: o('path', '/var/log/salt/api', true),
  api_pidfile: o('path', '/var/run/salt-api.pid', true),
};

export const MINION_OPTIONS: Record<string, OptionSpec> = {
  ...COMMON,
  /** brine: folders holding brine-plugin-* packages (and their node_modules), first match wins. */
  plugin_dirs: o('strlist', []),
  default_include: o('str', 'minion.d/*.conf'),
  master: o('str|strlist', 'salt'),
  master_port: o('port', 4506),
  publish_port: o('port', 4505),
  /** Salt's: 'str' (one master); failover, func and disable are not built. */
  master_type: o('str-master', 'str'),
  master_finger: o('str', ''),
  encryption_algorithm: o('encryption', 'OAEP-SHA1'),
  signing_algorithm: o('signing', 'PKCS1v15-SHA1'),
  /** The gpus grain from `lspci -vmm` (Salt's minion default: on); enable_lspci False turns lspci off too. */
  enable_gpu_grains: o('bool', true),
  enable_lspci: o('bool', true),
  /** Grains whose values go with each sign-in, for the master's autosign_grains_dir. */
  autosign_grains: o('strlist', []),
  /** Sign the loads of returns and events with the minion key (PKCS1v15-SHA1, whatever signing_algorithm says). */
  minion_sign_messages: o('bool', false),
  master_alive_interval: o('int', 0),
  master_tries: o('int', 1),
  retry_dns: o('number', 30),
  retry_dns_count: o('int?', null),
  source_interface_name: o('str', ''),
  source_address: o('str', ''),
  /** The local ports of the minion's request and publish connections (0: any). */
  source_ret_port: o('int', 0),
  source_publish_port: o('int', 0),
  id: o('str?', null),
  minion_id_caching: o('bool', true),
  minion_id_lowercase: o('bool', false),
  minion_id_remove_domain: o('any', false),
  append_domain: o('str?', null),
  grains: o('dict', {}),
  grains_cache: o('bool', false),
  grains_refresh_every: o('int', 0),
  pki_dir: o('path', '/etc/salt/pki/minion', true),
  cachedir: o('path', '/var/cache/salt/minion', true),
  sock_dir: o('path', '/var/run/salt/minion', true),
  log_file: o('path', '/var/log/salt/minion', true),
  key_logfile: o('path', '/var/log/salt/key', true),
  pidfile: o('path', '/var/run/salt-minion.pid', true),
  acceptance_wait_time: o('number', 10),
  acceptance_wait_time_max: o('number', 0),
  auth_tries: o('int', 7),
  auth_timeout: o('number', 5),
  auth_safemode: o('bool', false),
  random_reauth_delay: o('number', 10),
  recon_default: o('int', 1000),
  recon_max: o('int', 10000),
  recon_randomize: o('bool', true),
  return_retry_timer: o('number', 5),
  return_retry_timer_max: o('number', 10),
  return_retry_tries: o('int', 3),
  rejected_retry: o('bool', false),
  random_startup_delay: o('number', 0),
  ping_interval: o('int', 0),
  multiprocessing: o('bool', true),
  process_count_max: o('int', -1),
  /** Salt's: a state run at start, 'highstate', 'sls' (of sls_list) or 'top' (of top_file); '' none. */
  startup_states: o('str', ''),
  sls_list: o('str|strlist', []),
  top_file: o('str', ''),
  /** Execution modules not to load, by Salt's file names (`cmdmod`) or their names. */
  disable_modules: o('strlist', []),
  /** The only execution modules to load, by name (`cmd`); empty: all. */
  whitelist_modules: o('strlist', []),
  /** State modules not to load, as disable_modules. */
  disable_states: o('strlist', []),
  /** Returners not to load, as disable_modules. */
  disable_returners: o('strlist', []),
  cmd_safe: o('bool', true),
  file_client: o('str', 'remote'),
  pillar: o('dict', {}),
  environment: o('str?', null),
  saltenv: o('str?', null),
  test: o('bool', false),
  zmq_filtering: o('bool', false),
  /** Salt's sudo executor (jobs run through `sudo -u`): not built, so refused when set. */
  sudo_user: o('no-sudo', ''),
  failhard: o('bool', false),
  local: o('bool', false),
  /** Check the master key's pub_sig with <pki_dir>/master_sign.pub, and trust a new key it vouches for. */
  verify_master_pubkey_sign: o('bool', false),
  /** With verify_master_pubkey_sign: check it at every sign-in, not only when the key is new. */
  always_verify_signature: o('bool', false),
  master_sign_key_name: o('str', 'master_sign'),
  return: o('str|strlist', ''),
  schedule: o('dict', {}),
  beacons: o('dict', {}),
  mine_functions: o('dict', {}),
  mine_interval: o('int', 60),
  // brine's own: the root under which the `service` backends find init scripts, rc links and
  // unit files (plugins/service/init-scripts.ts); Salt's fixed paths are its default.
  service_root: o('str', '/'),
};
