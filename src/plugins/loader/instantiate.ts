import { PluginDefinitionError } from '../api/errors';
import { serviceName } from '../api/inject';
import type { InjectionToken } from '../api/metadata';
import type { ServiceContainer } from './container';

/**
 * Build a plugin instance from a container, checking first that every service its constructor
 * names is registered, so a missing one is a clear error ("Module 'pkgx' (class Pkgx) depends on
 * unknown service IPackages"), never `undefined` at run time.
 */
export function instantiate<T>(
  cls: new (...args: never[]) => T,
  injections: InjectionToken[],
  container: ServiceContainer,
  what: string,
  extraKnown: readonly symbol[] = [],
): T {
  const missing = unknownServices(injections, container, extraKnown);
  if (missing.length > 0) throw missingServiceError(what, cls.name, missing);
  const args: unknown[] = [];
  for (const t of injections) args[t.index] = container.get(t.token);
  return new cls(...(args as never[]));
}

export function unknownServices(
  injections: InjectionToken[],
  container: ServiceContainer,
  extraKnown: readonly symbol[] = [],
): InjectionToken[] {
  return injections.filter((t) => !t.optional && !extraKnown.includes(t.token) && !container.has(t.token));
}

export function missingServiceError(what: string, className: string, missing: InjectionToken[]): PluginDefinitionError {
  const list = missing.map((t) => `${serviceName(t.token)} (constructor parameter #${t.index + 1})`).join(', ');
  return new PluginDefinitionError(`${what} (class ${className}) depends on unknown service ${list}`, {
    hint: 'Use the services brine/plugin exports (IShell, IGrains, IConfig, ILogger, IJobContext, ISalt, IHost, IModules, IMinionControl, IPillar, IMasterLink, IMaster)',
  });
}
