/** The loaded configuration the daemons read (snake_case keys, as Salt's opts). */
import type { EncryptionAlgorithm, SigningAlgorithm } from '../crypto/rsa-algorithms';
import type { LogLevelName } from './option-types';

interface CommonConfig {
  root_dir: string;
  /** The main config file, and the directory it was read from (minion_id and grains files live here). */
  conf_file: string;
  config_dir: string;
  user: string;
  transport: 'zeromq';
  ipv6: boolean;
  /** brine: what speaks ZeroMQ on the publish and request ports, 'node' or 'libzmq' (zmq-ports.ts). */
  zmq_ports: string;
  hash_type: string;
  keysize: number;
  file_roots: Record<string, string[]>;
  pillar_roots: Record<string, string[]>;
  module_dirs: string[];
  extension_modules: string;
  pki_dir: string;
  cachedir: string;
  sock_dir: string;
  log_file: string;
  key_logfile: string;
  pidfile: string;
  log_level: LogLevelName;
  log_level_logfile: LogLevelName;
  log_fmt_console: string;
  log_fmt_logfile: string;
  log_datefmt: string;
  log_datefmt_logfile: string;
  log_granular_levels: Record<string, string>;
  id: string | null;
  publish_port: number;
  sign_pub_messages: boolean;
  /** Start even when the pki dir or the private key is open to group or others. */
  permissive_pki_access: boolean;
  /** Every other option, known or not, as written. */
  [option: string]: unknown;
}

export interface MasterConfig extends CommonConfig {
  interface: string;
  ret_port: number;
  autosign_file: string;
  autoreject_file: string;
  autosign_grains_dir: string;
  token_dir: string;
  auto_accept: boolean;
  open_mode: boolean;
  timeout: number;
  gather_job_timeout: number;
  worker_threads: number;
  keep_jobs: number;
  job_cache: boolean;
  /** Salt's: `{users: [...], modules: [...]}` no publish may name. */
  publisher_acl_blacklist: Record<string, unknown>;
  /** Salt's: how publications are signed, 'PKCS1v15-SHA1' or 'PKCS1v15-SHA224'. */
  publish_signing_algorithm: SigningAlgorithm;
  /** Salt's: drop returns a minion did not sign (minion_sign_messages). */
  require_minion_sign_messages: boolean;
  /** Salt's: drop returns whose minion signature does not verify (else logged and taken). */
  drop_messages_signature_fail: boolean;
  master_job_cache: string;
  minion_data_cache: boolean;
  nodegroups: Record<string, string | string[]>;
  publish_session: number;
  pub_hwm: number;
  loop_interval: number;
  keep_jobs_seconds: number;
  /** brine: the PostgreSQL job cache's connection ({host, port, user, pass, db}). */
  postgres: Record<string, unknown> | null;
  /** brine: SQLite job cache durability, 'normal' or 'full'. */
  job_cache_synchronous: string;
  file_buffer_size: number;
  /** brine: requests longer than this many bytes get "bad load" before decoding. */
  max_request_size: number;
  /** brine: new ids beyond this many pending keys are answered "pending" without a key file. */
  max_pending_keys: number;
  /** brine: `_auth` requests per connection per second. */
  auth_rate_limit: number;
  /** brine: new request-port connections per address per second (0 = no limit). */
  connection_rate_limit: number;
  /** Seconds an aes request's ts may be away from the master's clock (0 = no check). */
  request_server_ttl: number;
  /** Salt's: every accepted sign-in carries `pub_sig`, a signature of the master key. */
  master_sign_pubkey: boolean;
  /** Salt's: the signing key pair's name in pki_dir (master_sign.pem, master_sign.pub). */
  master_sign_key_name: string;
  /** Salt's: send the signature read from pki_dir/<master_pubkey_signature> (salt-key --gen-signature). */
  master_use_pubkey_signature: boolean;
  master_pubkey_signature: string;
}

export interface MinionConfig extends CommonConfig {
  master: string | string[];
  master_port: number;
  master_finger: string;
  /** Salt's: how the master encrypts keys to this minion, 'OAEP-SHA1' or 'OAEP-SHA224'. */
  encryption_algorithm: EncryptionAlgorithm;
  /** Salt's: how the master signs its replies to this minion, 'PKCS1v15-SHA1' or 'PKCS1v15-SHA224'. */
  signing_algorithm: SigningAlgorithm;
  /** Salt's: sign the loads of returns and events with the minion key. */
  minion_sign_messages: boolean;
  /** Salt's: check the master key's `pub_sig` with pki_dir/<master_sign_key_name>.pub; a new master key it vouches for is trusted. */
  verify_master_pubkey_sign: boolean;
  /** Salt's: with verify_master_pubkey_sign, check the signature at every sign-in. */
  always_verify_signature: boolean;
  master_sign_key_name: string;
  /** Salt's: grains whose values go with each sign-in (the master's autosign_grains_dir). */
  autosign_grains: string[];
  /** Salt's: how many jobs may run at once (0 or less: no limit). */
  process_count_max: number;
  minion_id_caching: boolean;
  minion_id_lowercase: boolean;
  minion_id_remove_domain: boolean | string;
  append_domain: string | null;
  grains: Record<string, unknown>;
  acceptance_wait_time: number;
  acceptance_wait_time_max: number;
  auth_tries: number;
  auth_timeout: number;
  random_reauth_delay: number;
  /** Salt's: seconds between lookups of a master name that does not resolve at start (0: no wait). */
  retry_dns: number;
  /** Salt's: how many such lookups before the minion gives up (null: for ever). */
  retry_dns_count: number | null;
  /** Salt's: minutes between `minion_ping` events to the master (0: none). */
  ping_interval: number;
  /** Salt's: with ping_interval, restart the minion's service when a ping goes unanswered. */
  auth_safemode: boolean;
  recon_default: number;
  recon_max: number;
  recon_randomize: boolean;
  tcp_keepalive: boolean;
  tcp_keepalive_idle: number;
  /** Salt's: the local address (or the interface whose address) the minion's connections come from, and their local ports (0: any). */
  source_address: string;
  source_interface_name: string;
  source_ret_port: number;
  source_publish_port: number;
  return_retry_timer: number;
  return_retry_timer_max: number;
  /** Salt's: the longest random wait (s) before a minion first signs in; 0 = none. */
  random_startup_delay: number;
  /** Salt's: the state run a minion starts for itself once up: 'highstate', 'sls', 'top' or '' (none). */
  startup_states: string;
  sls_list: string | string[];
  top_file: string;
  return_retry_tries: number;
  rejected_retry: boolean;
}

export interface LoadedConfig<C> {
  config: C;
  warnings: string[];
}
