// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The import boundaries of docs/dev/architecture.md "Import boundaries". Each entry: the files it governs, and the imports
 * they may not make. `src/main/boundaries.test.ts` proves each rule fires.
 */
const ELECTRON = '^electron(/|$)';
const NODE_BUILTINS =
  '^(node:|(fs|path|os|child_process|crypto|http|https|net|url|util|stream|worker_threads|module)(/|$))';
const folder = (...names) => `(^|/)(${names.join('|')})(/|$)`;
const SERVICE_FOLDERS = ['mcp', 'llm', 'approval', 'audit', 'chat', 'settings', 'storage'];

/** @param {string[]} files @param {{ regex: string, message: string }[]} patterns @param {string[]} [ignores] */
const restrict = (files, patterns, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});

const electronOnlyInShell = { regex: ELECTRON, message: "Only src/main/electron and src/preload import 'electron'." };
const namedExportsOnly = { selector: 'ExportDefaultDeclaration', message: 'Use named exports.' };

export const boundaries = [
  restrict(
    ['src/shared/**'],
    [
      {
        regex: `${ELECTRON}|^react(-dom)?(/|$)|${NODE_BUILTINS}`,
        message: 'src/shared is the contract: it imports nothing from Node, the DOM, React or Electron.',
      },
      { regex: folder('main', 'renderer', 'preload', 'cli'), message: 'src/shared imports only src/shared.' },
      { regex: '^zod$', message: "src/shared takes z from './zod', which configures it for the pages' CSP first." },
    ],
  ),
  restrict(
    ['src/renderer/**'],
    [
      { regex: `${ELECTRON}|${NODE_BUILTINS}`, message: 'The renderer talks to main only through window.workbench.' },
      {
        regex: folder('main', 'preload', 'cli'),
        message: 'The renderer imports only src/shared and browser packages.',
      },
    ],
  ),
  restrict(
    ['src/preload/**'],
    [
      {
        regex: `${folder('main', 'renderer', 'cli')}|${NODE_BUILTINS}`,
        message: 'The preload imports only electron and src/shared.',
      },
    ],
  ),
  restrict(['src/main/**', 'src/cli/**', 'scripts/**', 'e2e/**'], [electronOnlyInShell], ['src/main/electron/**']),
  restrict(
    SERVICE_FOLDERS.map((name) => `src/main/${name}/**`),
    [
      electronOnlyInShell,
      {
        regex: folder('host', 'electron', 'cli', 'renderer'),
        message: 'Services never import the hosts; the hosts import the services.',
      },
    ],
  ),
  // The pure policy engine (approval/policy): no I/O and no other service, so it is the same in every host and in tests.
  restrict(
    ['src/main/approval/policy/**'],
    [
      electronOnlyInShell,
      {
        regex: folder('host', 'electron', 'cli', 'renderer'),
        message: 'Services never import the hosts; the hosts import the services.',
      },
      {
        regex: `${folder('mcp', 'llm', 'audit', 'chat', 'settings', 'storage')}|^\\.\\./([^.]|\\.\\./[^.])|^(node:)?(fs|child_process|net|http|https|worker_threads)(/|$)|^better-sqlite3$`,
        message:
          'The policy engine (approval/policy) is pure: it imports only src/shared, itself and matching libraries; no I/O, no other service.',
      },
    ],
    ['src/main/approval/policy/**/*.test.ts', 'src/main/approval/policy/testing/**'],
  ),
  restrict(
    ['src/main/host/**'],
    [
      electronOnlyInShell,
      {
        regex: folder('electron', 'renderer', 'cli'),
        message: 'Host adapters stay free of Electron and the renderer.',
      },
    ],
  ),
  {
    // `import('electron')` slips past no-restricted-imports; `require` is already refused by no-require-imports.
    files: ['src/**', 'scripts/**', 'e2e/**'],
    ignores: ['src/main/electron/**', 'src/preload/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        namedExportsOnly,
        {
          selector: `ImportExpression[source.value=/${ELECTRON.replace('/', '\\u002F')}/]`,
          message: electronOnlyInShell.message,
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', namedExportsOnly],
    },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // Tool configuration files must export default.
    files: ['*.config.{js,ts}'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  ...boundaries,
);
