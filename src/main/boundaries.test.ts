// The import boundaries of docs/dev/architecture.md "Import boundaries", as the project's own eslint.config.js enforces them.
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });
// The whole tree is checked for the boundary rule alone: `npm run lint` runs every rule, and this stays quick.
const boundariesOnly = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' });

/** The no-restricted-imports messages ESLint gives `code` as if it were the file at `file` (relative to the root). */
async function boundaryErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  expect(result?.messages.filter((message) => message.fatal)).toEqual([]);
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

describe('import boundaries', () => {
  it.each([
    ['src/renderer/src/components/Leak.tsx', "import { ipcRenderer } from 'electron';", 'window.workbench'],
    ['src/renderer/src/state/leak.ts', "import fs from 'node:fs';", 'window.workbench'],
    ['src/renderer/src/state/leak.ts', "import fs from 'fs';", 'window.workbench'],
    ['src/renderer/src/state/leak.ts', "import { createServices } from '../../../main/services';", 'only src/shared'],
    ['src/renderer/src/state/leak.ts', "import { createServices } from '../../main/services';", 'only src/shared'],
    ['src/shared/leak.ts', "import { useState } from 'react';", 'src/shared is the contract'],
    ['src/shared/leak.ts', "import path from 'node:path';", 'src/shared is the contract'],
    ['src/shared/leak.ts', "import { contextBridge } from 'electron';", 'src/shared is the contract'],
    ['src/shared/leak.ts', "import { createServices } from '../main/services';", 'src/shared imports only src/shared'],
    ['src/shared/leak.ts', "import { z } from 'zod';", "src/shared takes z from './zod'"],
    [
      'src/main/chat/leak.ts',
      "import { createDispatcher } from '../host/dispatcher';",
      'Services never import the hosts',
    ],
    [
      'src/main/chat/leak.ts',
      "import { app } from 'electron';",
      "Only src/main/electron and src/preload import 'electron'",
    ],
    [
      'src/main/storage/leak.ts',
      "import { mainWindowOptions } from '../electron/window-options';",
      'Services never import the hosts',
    ],
    [
      'src/main/host/leak.ts',
      "import { ipcMain } from 'electron';",
      "Only src/main/electron and src/preload import 'electron'",
    ],
    [
      'src/main/host/leak.ts',
      "import { ipcMain } from 'electron/main';",
      "Only src/main/electron and src/preload import 'electron'",
    ],
    [
      'src/main/host/leak.ts',
      "import { isAppUrl } from '../electron/window-options';",
      'Host adapters stay free of Electron',
    ],
    [
      'src/main/services.ts',
      "import { app } from 'electron';",
      "Only src/main/electron and src/preload import 'electron'",
    ],
    ['src/cli/leak.ts', "import { app } from 'electron';", "Only src/main/electron and src/preload import 'electron'"],
    [
      'src/preload/leak.ts',
      "import { createServices } from '../main/services';",
      'The preload imports only electron and src/shared',
    ],
    ['src/main/approval/policy/leak.ts', "import fs from 'node:fs';", 'The policy engine (approval/policy) is pure'],
    [
      'src/main/approval/policy/leak.ts',
      "import { createPendingStore } from '../pending-store';",
      'The policy engine (approval/policy) is pure',
    ],
    [
      'src/main/approval/policy/leak.ts',
      "import { openDatabase } from '../../storage/database';",
      'The policy engine (approval/policy) is pure',
    ],
    [
      'src/main/approval/policy/leak.ts',
      "import { WorkbenchError } from '../../errors';",
      'The policy engine (approval/policy) is pure',
    ],
    ['src/preload/leak.ts', "import fs from 'node:fs';", 'The preload imports only electron and src/shared'],
  ])('%s may not `%s`', async (file, code, reason) => {
    const errors = await boundaryErrors(file, `${code}\n`);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain(reason);
  });

  it.each([
    ['src/main/chat/leak.ts', "export const load = (): Promise<unknown> => import('electron');\n"],
    ['src/renderer/src/state/leak.ts', "export const load = (): Promise<unknown> => import('electron/renderer');\n"],
    ['src/main/chat/leak.ts', "export const load = (): unknown => require('electron');\n"],
  ])('%s may not load electron dynamically: `%s`', async (file, code) => {
    const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
    const rules = (result?.messages ?? []).map((message) => message.ruleId);
    expect(
      rules.some((rule) => rule === 'no-restricted-syntax' || rule === '@typescript-eslint/no-require-imports'),
    ).toBe(true);
  });

  it('lets the shell load electron dynamically', async () => {
    const [result] = await eslint.lintText("export const load = (): Promise<unknown> => import('electron');\n", {
      filePath: path.join(root, 'src/main/electron/lazy.ts'),
    });
    expect(result?.messages).toEqual([]);
  });

  it('catches a re-export of electron outside the shell', async () => {
    expect(await boundaryErrors('src/main/host/leak.ts', "export { ipcMain } from 'electron';\n")).not.toEqual([]);
  });

  it.each([
    [
      'src/renderer/src/state/ok.ts',
      "import { methodNames } from '../../../shared/contract';\nexport const names = methodNames;\n",
    ],
    ['src/renderer/src/components/Ok.tsx', "import { useState } from 'react';\nexport const hook = useState;\n"],
    ['src/main/electron/main.ts', "import { app } from 'electron';\nexport const application = app;\n"],
    [
      'src/main/electron/ok.ts',
      "import { createServices } from '../services';\nimport { createDispatcher } from '../host/dispatcher';\nexport const wired = [createServices, createDispatcher];\n",
    ],
    [
      'src/preload/index.ts',
      "import { contextBridge } from 'electron';\nimport { buildWorkbenchApi } from '../shared/api';\nexport const bridge = [contextBridge, buildWorkbenchApi];\n",
    ],
    [
      'src/main/host/ok.ts',
      "import { createServices } from '../services';\nimport fs from 'node:fs';\nexport const used = [createServices, fs];\n",
    ],
    [
      'src/main/chat/ok.ts',
      "import { openDatabase } from '../storage/database';\nimport { randomUUID } from 'node:crypto';\nexport const used = [openDatabase, randomUUID];\n",
    ],
    [
      'src/main/approval/policy/ok.ts',
      "import picomatch from 'picomatch';\nimport path from 'node:path';\nimport type { ApprovalRule } from '../../../shared/approval';\nimport { compileRule } from './rule-compiler';\nexport const used: unknown[] = [picomatch, path, compileRule];\nexport type Rule = ApprovalRule;\n",
    ],
    [
      'src/shared/ok.ts',
      "import { z } from './zod';\nimport { methodNames } from './contract';\nexport const used = [z, methodNames];\n",
    ],
  ])('%s may import what it needs', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });

  // Lints the whole tree: allowed two minutes, as a busy machine takes more than the default half minute.
  it('the real source tree keeps every boundary', { timeout: 120_000 }, async () => {
    const files = (fs.readdirSync(path.join(root, 'src'), { recursive: true, encoding: 'utf8' }) as string[])
      .filter((file) => /\.(ts|tsx|mts|cts)$/.test(file))
      .map((file) => path.join(root, 'src', file));
    expect(files.length).toBeGreaterThan(20);
    expect(files).toContain(path.join(root, 'src', 'main', 'electron', 'main.ts'));
    const results = await boundariesOnly.lintFiles(files);
    expect(results).toHaveLength(files.length);
    const violations = results.flatMap((result) =>
      result.messages
        .filter((message) => message.ruleId === 'no-restricted-imports' || message.fatal)
        .map((message) => `${path.relative(root, result.filePath)}:${message.line} ${message.message}`),
    );
    expect(violations).toEqual([]);
  });
});

/**
 * The folders of src/main import each other one way only (docs/dev/architecture.md): a folder never imports one that
 * imports it back, directly or round a longer loop. Tests and their `testing/` helpers wire real services together and
 * are left out; the code that ships is not.
 */
function folderGraph(files: ReadonlyMap<string, string>): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  const folderOf = (file: string): string => (file.includes('/') ? (file.split('/')[0] as string) : file);
  for (const [file, code] of files) {
    if (/\.test(-d)?\.tsx?$/.test(file) || file.split('/').includes('testing')) continue;
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const match of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string));
      if (target.startsWith('..')) continue;
      const to = folderOf(target.includes('/') ? target : `${target}.ts`);
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every loop of folders (strongly connected components of more than one folder), each sorted, by Tarjan's algorithm. */
function folderCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = member === node ? undefined : stack.pop())
      component.push(member);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('folders under src/main', () => {
  it('finds a loop of folders in a fixture, direct or round three folders, and ignores tests', () => {
    const fixture = new Map([
      ['approval/pending.ts', "import type { Loop } from '../chat/loop';\n"],
      ['chat/loop.ts', "import { x } from '../approval/pending';\nimport { y } from '../errors';\n"],
      ['errors.ts', 'export const y = 1;\n'],
      ['audit/log.ts', "export { a } from '../mcp/host';\n"],
      ['mcp/host.ts', "const load = () => import('../storage/db');\n"],
      ['storage/db.ts', "import '../audit/log';\n"],
      ['llm/provider.ts', "import { z } from 'zod';\nimport { y } from '../errors';\n"],
      ['llm/provider.test.ts', "import { x } from '../approval/pending';\n"],
      ['approval/testing/fixtures.ts', "import { p } from '../../llm/provider';\n"],
    ]);
    expect(folderCycles(folderGraph(fixture))).toEqual([
      ['approval', 'chat'],
      ['audit', 'mcp', 'storage'],
    ]);
  });

  it('the real source has no loop of folders (approval/ does not import chat/, settings/ does not import mcp/)', () => {
    const dir = path.join(root, 'src', 'main');
    const files = new Map(
      (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[])
        .filter((file) => /\.tsx?$/.test(file))
        .map((file) => [file.split(path.sep).join('/'), fs.readFileSync(path.join(dir, file), 'utf8')] as const),
    );
    const graph = folderGraph(files);
    expect(graph.get('chat')?.has('approval')).toBe(true);
    expect(graph.get('mcp')?.has('settings')).toBe(true);
    expect(folderCycles(graph)).toEqual([]);
  });
});
