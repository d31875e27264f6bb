import type { DependencyContainer } from 'tsyringe';
import { PluginDefinitionError } from '../api/errors';
import type { InjectionToken } from '../api/metadata';
import { serviceName } from '../api/services';

/**
 * Build a plugin instance from a container, checking first that every service its constructor
 * names is registered, so a missing one is a clear error ("Module 'pkgx' (class Pkgx) depends on
 * unknown service IPackages"), never `undefined` at run time.
 */
export function instantiate<T>(
  cls: new (...args: never[]) => T,
  injections: InjectionToken[],
  container: DependencyContainer,
  what: string,
  extraKnown: readonly unknown[] = [],
): T {
  const missing = unknownServices(injections, container, extraKnown);
  if (missing.length > 0) throw missingServiceError(what, cls.name, missing);
  const args = injections.map((t) =>
    t.optional && !container.isRegistered(t.token as symbol, true) ? undefined : container.resolve(t.token as symbol),
  );
  return new cls(...(args as never[]));
}

export function unknownServices(injections: InjectionToken[], container: DependencyContainer, extraKnown: readonly unknown[] = []): InjectionToken[] {
  return injections.filter((t) => !t.optional && !extraKnown.includes(t.token) && !container.isRegistered(t.token as symbol, true));
}

export function missingServiceError(what: string, className: string, missing: InjectionToken[]): PluginDefinitionError {
  const list = missing.map((t) => `${serviceName(t.token)} (constructor parameter #${t.index + 1})`).join(', ');
  return new PluginDefinitionError(`${what} (class ${className}) depends on unknown service ${list}`, {
    hint: 'Use the services brine/plugin exports (IShell, IGrains, IConfig, ILogger, IJobContext, ISalt, IHost, IModules, IMinionControl)',
  });
}
