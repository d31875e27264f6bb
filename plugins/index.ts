/**
 * The built-in plugins, listed statically so they load the same from TypeScript sources (vitest)
 * and from the compiled dist/ tree.
 */
import { CmdModule } from './cmd/cmd.module';
import { CoreGrains } from './grains/core-grains';
import { GrainsModule } from './grains/grains.module';
import { PillarModule } from './pillar/pillar.module';
import { SaltutilModule } from './saltutil/saltutil.module';
import { SysModule } from './sys/sys.module';
import { TestModule } from './test/test.module';
import { StateModule } from './state/state.module';
import { CpModule } from './cp/cp.module';
import { EventModule } from './event/event.module';
import { MineModule } from './mine/mine.module';
import { TestStates } from './test/test.state';
import { CmdStates } from './cmd/cmd.state';
import { FileStates } from './file/file.state';

export { CmdModule, CoreGrains, CpModule, EventModule, GrainsModule, MineModule, PillarModule, SaltutilModule, SysModule, TestModule };

/** Every built-in module class and grains provider, in load order. */
export const BUILTIN_PLUGINS: readonly unknown[] = [CoreGrains, TestModule, CmdModule, GrainsModule, SysModule, SaltutilModule, PillarModule, StateModule, CpModule, EventModule, MineModule];

/** The built-in state module classes. */
export const BUILTIN_STATE_MODULES: readonly unknown[] = [TestStates, CmdStates, FileStates];
