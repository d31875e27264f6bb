/**
 * How a worker thread or a child process of brine starts when brine runs from its TypeScript
 * sources (vitest), where no compiled .js lies beside the entry: a small script, for `new Worker(
 * script, { eval: true })` or `node -e script`, that installs a require hook transpiling .ts files
 * with the typescript package, then requires the entry. Compiled installs never use it.
 */
export function typescriptEntryScript(entry: string): string {
  return `
    const { createRequire } = require('node:module');
    const { readFileSync } = require('node:fs');
    const entry = ${JSON.stringify(entry)};
    const req = createRequire(entry);
    const ts = req('typescript');
    req.extensions['.ts'] = (module, filename) => {
      const out = ts.transpileModule(readFileSync(filename, 'utf8'), {
        fileName: filename,
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true },
      });
      module._compile(out.outputText, filename);
    };
    req(entry);
  `;
}
