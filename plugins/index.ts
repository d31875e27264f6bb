/**
 * The built-in plugins, listed statically so they load the same from TypeScript sources (vitest)
 * and from the compiled dist/ tree.
 */
import { CmdModule } from './cmd/cmd.module';
import { CoreGrains } from './grains/core-grains';
import { GrainsModule } from './grains/grains.module';
import { TestModule } from './test/test.module';

export { CmdModule, CoreGrains, GrainsModule, TestModule };

/** Every built-in module class and grains provider, in load order. */
export const BUILTIN_PLUGINS: readonly unknown[] = [CoreGrains, TestModule, CmdModule, GrainsModule];
