/**
 * Scaffold a brine plugin package: `npm run new-plugin -- <module name> [--dir <parent dir>]`.
 * Writes <parent>/brine-plugin-<name>/ with package.json (brine as a peer dependency and the
 * `brine.entry` key the loader reads), tsconfig.json, src/index.ts, src/<name>.module.ts and a test
 * using brine/testing.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const MODULE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** A scaffold that cannot be written (bad name, existing folder). */
export class ScaffoldError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScaffoldError';
  }
}

function className(name: string): string {
  return `${name
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Module`;
}

/** The files of a new plugin package, by relative path. */
export function pluginFiles(name: string): Record<string, string> {
  if (!MODULE_NAME.test(name))
    throw new ScaffoldError(`module name must be a word of letters, digits and '_' starting with a letter (got ${JSON.stringify(name)})`);
  const cls = className(name);
  const pkg = {
    name: `brine-plugin-${name.replace(/_/g, '-')}`,
    version: '0.1.0',
    description: `brine execution module '${name}'`,
    main: 'dist/index.js',
    files: ['dist'],
    brine: { entry: 'dist/index.js' },
    scripts: { build: 'tsc -p tsconfig.json', test: 'vitest run' },
    peerDependencies: { brine: '>=0.1.0' },
    devDependencies: { '@types/node': '^20.19.43', brine: '>=0.1.0', typescript: '^5.9.0', vitest: '^4.1.0' },
  };
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'node16',
      moduleResolution: 'node16',
      strict: true,
      experimentalDecorators: true,
      declaration: true,
      outDir: 'dist',
      rootDir: 'src',
      skipLibCheck: true,
    },
    include: ['src'],
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(tsconfig, null, 2)}\n`,
    'src/index.ts': `// The brine entry: every @Module and @GrainsProvider class exported here is loaded.\nexport { ${cls} } from './${name}.module';\n`,
    [`src/${name}.module.ts`]: `import { Fn, IShell, Module, arg, inject } from 'brine/plugin';

@Module('${name}', { doc: 'What ${name} does' })
export class ${cls} {
  constructor(@inject(IShell) private readonly shell: IShell) {}

  // The arguments are declared: the job's values are bound, coerced and checked before the call,
  // and TypeScript checks this method's parameter type against them.
  @Fn({
    summary: 'Echo a text back',
    examples: ["salt '*' ${name}.echo hello"],
    args: { text: arg.string() },
  })
  echo({ text }: { text: string }): string {
    return text;
  }

  @Fn({ summary: 'Return the kernel name (uname -s)', examples: ["salt '*' ${name}.kernel"] })
  async kernel(): Promise<string> {
    const res = await this.shell.run(['uname', '-s']);
    return res.stdout.trim();
  }
}
`,
    [`test/${name}.module.test.ts`]: `import { describe, expect, it } from 'vitest';
import { createHarness, fakeShell } from 'brine/testing';
import { ${cls} } from '../src/${name}.module';

describe('${name} module', () => {
  it('echoes', async () => {
    const h = await createHarness({ modules: [${cls}] });
    expect(await h.call('${name}.echo', ['hi'])).toEqual({ return: 'hi', retcode: 0, success: true });
  });

  it('asks the shell for the kernel', async () => {
    const h = await createHarness({ modules: [${cls}], shell: fakeShell(() => ({ stdout: 'Linux\\n' })) });
    expect((await h.call('${name}.kernel')).return).toBe('Linux');
  });
});
`,
  };
}

/** Write a new plugin package folder; returns its path. Refuses to overwrite an existing folder. */
export function scaffoldPlugin(name: string, parentDir: string): string {
  const files = pluginFiles(name);
  const dir = resolve(parentDir, `brine-plugin-${name.replace(/_/g, '-')}`);
  if (existsSync(dir)) throw new ScaffoldError(`${dir} already exists`);
  for (const [rel, text] of Object.entries(files)) {
    const path = join(dir, rel);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
  return dir;
}

function main(argv: string[]): number {
  const args = [...argv];
  // `npm run` starts scripts in brine's own folder; INIT_CWD is where the user typed the command.
  let parent = process.env.INIT_CWD ?? process.cwd();
  const at = args.indexOf('--dir');
  if (at !== -1) {
    if (!args[at + 1]) {
      process.stderr.write('--dir needs a directory\n');
      return 2;
    }
    parent = args[at + 1];
    args.splice(at, 2);
  }
  if (args.length !== 1) {
    process.stderr.write('Usage: npm run new-plugin -- <module name> [--dir <parent dir>]\n');
    return 2;
  }
  try {
    const dir = scaffoldPlugin(args[0], parent);
    process.stdout.write(`Created ${dir}\nNext: cd ${dir} && npm install && npm run build && npm test\n`);
    return 0;
  } catch (err) {
    if (err instanceof ScaffoldError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
