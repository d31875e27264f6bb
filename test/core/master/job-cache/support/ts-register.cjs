// Lets a plain `node -r ./ts-register.cjs child.ts` run the TypeScript sources (CommonJS), so a
// child process can use brine's job cache without a build. Types are not checked here (tsc does
// that); each file is transpiled on its own with the repository's module settings.
const fs = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = function compileTs(module, filename) {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
    },
  });
  module._compile(out.outputText, filename);
};
