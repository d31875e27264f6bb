/**
 * The built-in modules by kind and name, and where each is defined, so that a minion or a
 * salt-call run from the compiled tree loads a module's code only when it is first asked for: a
 * `salt-call state.apply` of file states loads the state, file and cmd modules, not pkg, service
 * or the accounts. The order is that of plugins/index.ts (listed-only runners first, as the
 * loader takes them); test/plugins/manifest.test.ts checks the table against the classes'
 * decorators and those lists.
 */
import { join } from 'node:path';
import type { PluginKind } from 'brine/plugin';

export interface ManifestEntry {
  kind: PluginKind;
  name: string;
  /** The file that exports the class, relative to this folder. */
  file: string;
  export: string;
  /** Registered for its name and docs only: the master's runners and wheels, which a minion lists. */
  listedOnly?: boolean;
}

export const BUILTIN_MANIFEST: readonly ManifestEntry[] = [
  { kind: 'runner', name: 'manage', file: './manage/manage.runner', export: 'ManageRunner', listedOnly: true },
  { kind: 'runner', name: 'cache', file: './cache/cache.runner', export: 'CacheRunner', listedOnly: true },
  { kind: 'runner', name: 'state', file: './state/state.runner', export: 'StateRunner', listedOnly: true },
  { kind: 'runner', name: 'pillar', file: './pillar/pillar.runner', export: 'PillarRunner', listedOnly: true },
  { kind: 'wheel', name: 'pillar_roots', file: './pillar_roots/pillar-roots.wheel', export: 'PillarRootsWheel', listedOnly: true },
  { kind: 'execution', name: 'test', file: './test/test.module', export: 'TestModule' },
  { kind: 'execution', name: 'cmd', file: './cmd/cmd.module', export: 'CmdModule' },
  { kind: 'execution', name: 'grains', file: './grains/grains.module', export: 'GrainsModule' },
  { kind: 'execution', name: 'sys', file: './sys/sys.module', export: 'SysModule' },
  { kind: 'execution', name: 'saltutil', file: './saltutil/saltutil.module', export: 'SaltutilModule' },
  { kind: 'execution', name: 'pillar', file: './pillar/pillar.module', export: 'PillarModule' },
  { kind: 'execution', name: 'state', file: './state/state.module', export: 'StateExecModule' },
  { kind: 'execution', name: 'file', file: './file/file.module', export: 'FileModule' },
  { kind: 'execution', name: 'pkg', file: './pkg/pkg.module', export: 'PkgModule' },
  { kind: 'execution', name: 'pkg', file: './pkg/dnf.module', export: 'DnfPkgModule' },
  { kind: 'execution', name: 'pkg', file: './pkg/apk.module', export: 'ApkPkgModule' },
  { kind: 'execution', name: 'lowpkg', file: './pkg/dpkg-lowpkg.module', export: 'DpkgLowpkgModule' },
  { kind: 'execution', name: 'lowpkg', file: './pkg/rpm-lowpkg.module', export: 'RpmLowpkgModule' },
  { kind: 'execution', name: 'service', file: './service/service.module', export: 'ServiceModule' },
  { kind: 'execution', name: 'service', file: './service/debian-service.module', export: 'DebianServiceModule' },
  { kind: 'execution', name: 'service', file: './service/openrc-service.module', export: 'OpenrcServiceModule' },
  { kind: 'execution', name: 'service', file: './service/rh-service.module', export: 'RhServiceModule' },
  { kind: 'execution', name: 'config', file: './config/config.module', export: 'ConfigModule' },
  { kind: 'execution', name: 'user', file: './accounts/user.module', export: 'UserModule' },
  { kind: 'execution', name: 'group', file: './accounts/group.module', export: 'GroupModule' },
  { kind: 'execution', name: 'shadow', file: './accounts/shadow.module', export: 'ShadowModule' },
  { kind: 'execution', name: 'status', file: './status/status.module', export: 'StatusModule' },
  { kind: 'execution', name: 'disk', file: './disk/disk.module', export: 'DiskModule' },
  { kind: 'execution', name: 'network', file: './network/network.module', export: 'NetworkModule' },
  { kind: 'execution', name: 'cp', file: './cp/cp.module', export: 'CpModule' },
  { kind: 'execution', name: 'event', file: './event/event.module', export: 'EventModule' },
  { kind: 'execution', name: 'mine', file: './mine/mine.module', export: 'MineModule' },
  { kind: 'execution', name: 'beacons', file: './beacons/beacons.module', export: 'BeaconsModule' },
  { kind: 'execution', name: 'schedule', file: './schedule/schedule.module', export: 'ScheduleModule' },
  { kind: 'state', name: 'test', file: './test/test.state', export: 'TestStates' },
  { kind: 'state', name: 'cmd', file: './cmd/cmd.state', export: 'CmdStates' },
  { kind: 'state', name: 'file', file: './file/file.state', export: 'FileStates' },
  { kind: 'state', name: 'user', file: './accounts/user.state', export: 'UserStates' },
  { kind: 'state', name: 'group', file: './accounts/group.state', export: 'GroupStates' },
  { kind: 'state', name: 'pkg', file: './pkg/pkg.state', export: 'PkgStates' },
  { kind: 'state', name: 'service', file: './service/service.state', export: 'ServiceStates' },
  { kind: 'returner', name: 'local_cache', file: './returners', export: 'LocalCacheReturner' },
  { kind: 'returner', name: 'syslog', file: './returners', export: 'SyslogReturner' },
  { kind: 'returner', name: 'pgjsonb', file: './returners', export: 'PgjsonbReturner' },
  { kind: 'returner', name: 'postgres', file: './returners', export: 'PostgresReturner' },
];

/** The grains providers, loaded at start (grains are computed before any module is asked for). */
export const BUILTIN_GRAINS_PROVIDERS: ReadonlyArray<Pick<ManifestEntry, 'file' | 'export'>> = [
  { file: './grains/core-grains', export: 'CoreGrains' },
  { file: './grains/system-grains', export: 'SystemGrains' },
];

function loadClass(entry: Pick<ManifestEntry, 'file' | 'export'>): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(join(__dirname, entry.file)) as Record<string, unknown>)[entry.export];
}

/**
 * The manifest as the plugin loader takes it (`builtins`: the grains providers' classes;
 * `lazyBuiltins`: the modules), or undefined when running from the TypeScript sources (vitest),
 * where `require` cannot load them: plugins/index.ts's BUILTIN_PLUGINS are used there.
 */
export function lazyBuiltins():
  { builtins: unknown[]; lazyBuiltins: { kind: PluginKind; name: string; listedOnly?: boolean; load(): unknown }[] } | undefined {
  if (!__filename.endsWith('.js')) return undefined;
  return {
    builtins: BUILTIN_GRAINS_PROVIDERS.map(loadClass),
    lazyBuiltins: BUILTIN_MANIFEST.map((entry) => ({
      kind: entry.kind,
      name: entry.name,
      listedOnly: entry.listedOnly,
      load: () => loadClass(entry),
    })),
  };
}
