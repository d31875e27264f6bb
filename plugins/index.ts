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

export { CmdModule, CoreGrains, GrainsModule, PillarModule, SaltutilModule, SysModule, TestModule };

/** Every built-in module class and grains provider, in load order. */
export const BUILTIN_PLUGINS: readonly unknown[] = [CoreGrains, TestModule, CmdModule, GrainsModule, SysModule, SaltutilModule, PillarModule];
