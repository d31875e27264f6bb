/**
 * The facts the minion id guess reads about its host. They are injected so the resolver can be run
 * against any staged host (tests use a fake; salt-minion uses `createNodeIdentitySources`).
 */
export interface IdentitySources {
  /** `socket.gethostname()`. */
  gethostname(): Promise<string>;
  /** `platform.node()`: the kernel's node name (`uname -n`). */
  nodename(): Promise<string>;
  /**
   * Python's `socket.getfqdn(name)`: an empty name means this host's name; the name is resolved to
   * an address and that address back to `[hostname, ...aliases]`; the first of those containing a
   * dot is the answer, else the hostname. When a lookup fails the answer is `name` itself. Never throws.
   */
  getfqdn(name: string): Promise<string>;
  /** The canonical name `getaddrinfo(host, AI_CANONNAME)` reports, or null when there is none. */
  canonicalName(host: string): Promise<string | null>;
  /** The text of a host file such as `/etc/hosts`, or null when it is missing or unreadable. */
  readSystemFile(path: string): Promise<string | null>;
  /** Every IPv4 address on the host's interfaces, loopback included (the resolver filters). */
  ipv4Addresses(): Promise<string[]>;
  /** The id cache's text, null when the file does not exist; other failures throw. */
  readCacheFile(path: string): Promise<string | null>;
  /** Writes the id cache, creating its directory when needed; failures throw. */
  writeCacheFile(path: string, text: string): Promise<void>;
}

/** The logger the resolver writes to (a brine `Logger` fits). Messages come pre-formatted. */
export interface IdentityLog {
  debug(msg: string): void;
  info(msg: string): void;
  warning(msg: string): void;
}
