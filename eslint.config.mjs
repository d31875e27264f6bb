// ESLint 9 flat config. The import rules encode ../shared/STYLE.md's layers; the rest is kept small
// on purpose (the type checker does the heavy lifting: `npm run typecheck`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const zeromqOnlyInTransport = {
  name: 'zeromq',
  message: 'Only src/core/transport/zeromq.ts imports zeromq: use a Transport (src/core/transport/types.ts).',
};

// Control flow on an error's message text breaks when a message is reworded: test its `code`.
const noMessageControlFlow = [
  {
    selector:
      "CallExpression[callee.property.name=/^(startsWith|endsWith|includes|match|indexOf)$/][callee.object.property.name='message']",
    message: "Do not branch on an error's message text: give the error a code and test `code` (STYLE.md).",
  },
  {
    selector: "CallExpression[callee.property.name='test'] > MemberExpression.arguments[property.name='message']",
    message: "Do not branch on an error's message text: give the error a code and test `code` (STYLE.md).",
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'examples/*/node_modules/**', 'examples/*/dist/**', 'coverage/**'] },
  // Some files carry directives for rules this config does not enable (written for other setups).
  { linterOptions: { reportUnusedDisableDirectives: 'off' } },
  {
    files: ['**/*.ts', '**/*.mts'],
    extends: [js.configs.recommended, tseslint.configs.base],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module' },
    rules: {
      // TypeScript checks these better (and knows Node's globals).
      'no-undef': 'off',
      'no-unused-vars': 'off',
      'no-redeclare': 'off',
      'no-dupe-class-members': 'off',
      // Intentional in places (`for (;;)` loops, control-character regexes of Salt's formats).
      'no-constant-condition': ['error', { checkLoops: false }],
      'no-control-regex': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-restricted-imports': ['error', { paths: [zeromqOnlyInTransport] }],
      'no-restricted-syntax': ['error', ...noMessageControlFlow],
    },
  },
  {
    files: ['src/core/transport/zeromq.ts', 'bench/**', 'test/**'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // Expected outputs are matched literally (Salt's spacing) and numbers are written as Salt sends them.
    files: ['test/**'],
    rules: { 'no-regex-spaces': 'off', 'no-loss-of-precision': 'off' },
  },
  {
    // The CLI parses flags, calls down and prints: no wire messages, crypto or sockets. The
    // argument and jid conventions (core/protocol/salt-args.ts, jid.ts) are shared with the user.
    files: ['src/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [zeromqOnlyInTransport],
          patterns: [
            {
              regex: 'core/(crypto|transport|channel)(/|$)',
              message: 'src/cli imports no crypto, channel or transport: go through src/core/client or src/core/master.',
            },
            {
              regex: 'core/protocol/(?!salt-args$|jid$)',
              message: 'src/cli imports no protocol messages: go through src/core/client (only salt-args and jid are shared).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    ignores: ['src/core/transport/zeromq.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [zeromqOnlyInTransport],
          patterns: [
            {
              regex: '^(\\.\\./)+(plugins|src/plugins)(/|$)|/plugins/',
              message: 'src/core never imports plugins: plugins depend on the core, not the reverse.',
            },
          ],
        },
      ],
    },
  },
  {
    // Built-in modules are written as a third party would: brine/plugin, node: and their own files.
    files: ['plugins/**/*.ts'],
    ignores: ['plugins/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!brine/plugin$|node:|\\./)',
              message: "plugins/* import only 'brine/plugin', 'node:' modules and their own files.",
            },
          ],
        },
      ],
    },
  },
);
