/**
 * The built-in plugins, listed statically so they load the same from TypeScript sources (vitest)
 * and from the compiled dist/ tree.
 */
import { CmdModule } from './cmd/cmd.module';
import { CoreGrains } from './grains/core-grains';
import { SystemGrains } from './grains/system-grains';
import { GrainsModule } from './grains/grains.module';
import { PillarModule } from './pillar/pillar.module';
import { SaltutilModule } from './saltutil/saltutil.module';
import { SysModule } from './sys/sys.module';
import { TestModule } from './test/test.module';
import { StateExecModule } from './state/state.module';
import { TestStates } from './test/test.state';
import { SaltStates } from './saltmod/salt.state';
import { CmdStates } from './cmd/cmd.state';
import { FileStates } from './file/file.state';
import { FileModule } from './file/file.module';
import { PkgModule } from './pkg/pkg.module';
import { PkgStates } from './pkg/pkg.state';
import { DnfPkgModule } from './pkg/dnf.module';
import { ApkPkgModule } from './pkg/apk.module';
import { DpkgLowpkgModule } from './pkg/dpkg-lowpkg.module';
import { RpmLowpkgModule } from './pkg/rpm-lowpkg.module';
import { CpModule } from './cp/cp.module';
import { EventModule } from './event/event.module';
import { MineModule } from './mine/mine.module';
import { BeaconsModule } from './beacons/beacons.module';
import { ScheduleModule } from './schedule/schedule.module';
import { ServiceModule } from './service/service.module';
import { DebianServiceModule } from './service/debian-service.module';
import { OpenrcServiceModule } from './service/openrc-service.module';
import { RhServiceModule } from './service/rh-service.module';
import { ServiceStates } from './service/service.state';
import { ConfigModule } from './config/config.module';
import { UserModule } from './accounts/user.module';
import { GroupModule } from './accounts/group.module';
import { ShadowModule } from './accounts/shadow.module';
import { UserStates } from './accounts/user.state';
import { GroupStates } from './accounts/group.state';
import { StatusModule } from './status/status.module';
import { DiskModule } from './disk/disk.module';
import { NetworkModule } from './network/network.module';
import { ManageRunner } from './manage/manage.runner';
import { CacheRunner } from './cache/cache.runner';
import { StateRunner } from './state/state.runner';
import { PillarRunner } from './pillar/pillar.runner';
import { PillarRootsWheel } from './pillar_roots/pillar-roots.wheel';
import { LocalCacheReturner, PgjsonbReturner, PostgresReturner, SyslogReturner } from './returners';

export {
  CmdModule,
  CoreGrains,
  CpModule,
  EventModule,
  MineModule,
  BeaconsModule,
  ScheduleModule,
  SystemGrains,
  FileModule,
  PkgModule,
  DnfPkgModule,
  ApkPkgModule,
  DpkgLowpkgModule,
  RpmLowpkgModule,
  PkgStates,
  ServiceModule,
  DebianServiceModule,
  OpenrcServiceModule,
  RhServiceModule,
  ServiceStates,
  ConfigModule,
  UserModule,
  GroupModule,
  ShadowModule,
  StatusModule,
  DiskModule,
  NetworkModule,
  GrainsModule,
  PillarModule,
  SaltutilModule,
  SysModule,
  TestModule,
  StateExecModule,
  TestStates,
  CmdStates,
  FileStates,
  UserStates,
  GroupStates,
  LocalCacheReturner,
  SyslogReturner,
  PgjsonbReturner,
  PostgresReturner,
};

/** Every built-in plugin class (execution and state modules, grains providers), in load order. */
export const BUILTIN_PLUGINS: readonly unknown[] = [
  CoreGrains,
  SystemGrains,
  TestModule,
  CmdModule,
  GrainsModule,
  SysModule,
  SaltutilModule,
  PillarModule,
  StateExecModule,
  FileModule,
  PkgModule,
  DnfPkgModule,
  ApkPkgModule,
  DpkgLowpkgModule,
  RpmLowpkgModule,
  ServiceModule,
  DebianServiceModule,
  OpenrcServiceModule,
  RhServiceModule,
  ConfigModule,
  UserModule,
  GroupModule,
  ShadowModule,
  StatusModule,
  DiskModule,
  NetworkModule,
  CpModule,
  EventModule,
  MineModule,
  BeaconsModule,
  ScheduleModule,
  TestStates,
  CmdStates,
  FileStates,
  UserStates,
  GroupStates,
  PkgStates,
  ServiceStates,
  LocalCacheReturner,
  SyslogReturner,
  PgjsonbReturner,
  PostgresReturner,
];

/** The built-in runners and wheel modules the master functions load (salt-run, salt-api). */
export const BUILTIN_MASTER_PLUGINS: readonly unknown[] = [ManageRunner, CacheRunner, StateRunner, PillarRunner, PillarRootsWheel];

/**
 * The state modules an orchestration runs on the master (`salt-run state.orchestrate`): `salt.*`,
 * which publishes jobs to minions, and `test.*`. Not on minions, which cannot publish.
 */
export const BUILTIN_ORCHESTRATION_STATES: readonly unknown[] = [SaltStates, TestStates];

/** The built-in returners, which the master also loads for `event_return`. */
export const BUILTIN_RETURNERS: readonly unknown[] = [LocalCacheReturner, SyslogReturner, PgjsonbReturner, PostgresReturner];
