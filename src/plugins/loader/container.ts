/**
 * The loader's own service container: values registered by service id, looked up through the
 * parents (the loader's container holds the host services; each job gets a child holding its
 * `IJobContext`, `ISalt`, `IModules`). No global container, no registration at import time.
 *
 * @example
 * const root = new ServiceContainer();
 * root.register(IShell, new NodeShell());
 * const job = root.createChild();
 * job.register(IJobContext, ctx);
 * job.get(IShell); // the root's shell
 */
export class ServiceContainer {
  private readonly values = new Map<symbol, unknown>();

  constructor(private readonly parent?: ServiceContainer) {}

  register(id: symbol, value: unknown): void {
    this.values.set(id, value);
  }

  has(id: symbol): boolean {
    return this.values.has(id) || (this.parent?.has(id) ?? false);
  }

  /** The service, or undefined when neither this container nor a parent has it. */
  get(id: symbol): unknown {
    return this.values.has(id) ? this.values.get(id) : this.parent?.get(id);
  }

  createChild(): ServiceContainer {
    return new ServiceContainer(this);
  }
}
