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
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
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
    ['src/main/chat/leak.ts', "import { createDispatcher } from '../host/dispatcher';", 'Services never import the hosts'],
    ['src/main/chat/leak.ts', "import { app } from 'electron';", "Only src/main/electron and src/preload import 'electron'"],
    ['src/main/storage/leak.ts', "import { mainWindowOptions } from '../electron/window-options';", 'Services never import the hosts'],
    ['src/main/host/leak.ts', "import { ipcMain } from 'electron';", "Only src/main/electron and src/preload import 'electron'"],
    ['src/main/host/leak.ts', "import { ipcMain } from 'electron/main';", "Only src/main/electron and src/preload import 'electron'"],
    ['src/main/host/leak.ts', "import { isAppUrl } from '../electron/window-options';", 'Host adapters stay free of Electron'],
    ['src/main/services.ts', "import { app } from 'electron';", "Only src/main/electron and src/preload import 'electron'"],
    ['src/cli/leak.ts', "import { app } from 'electron';", "Only src/main/electron and src/preload import 'electron'"],
    ['src/preload/leak.ts', "import { createServices } from '../main/services';", 'The preload imports only electron and src/shared'],
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
    expect(rules.some((rule) => rule === 'no-restricted-syntax' || rule === '@typescript-eslint/no-require-imports')).toBe(true);
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
    ['src/renderer/src/state/ok.ts', "import { methodNames } from '../../../shared/contract';\nexport const names = methodNames;\n"],
    ['src/renderer/src/components/Ok.tsx', "import { useState } from 'react';\nexport const hook = useState;\n"],
    ['src/main/electron/main.ts', "import { app } from 'electron';\nexport const application = app;\n"],
    ['src/main/electron/ok.ts', "import { createServices } from '../services';\nimport { createDispatcher } from '../host/dispatcher';\nexport const wired = [createServices, createDispatcher];\n"],
    ['src/preload/index.ts', "import { contextBridge } from 'electron';\nimport { buildWorkbenchApi } from '../shared/api';\nexport const bridge = [contextBridge, buildWorkbenchApi];\n"],
    ['src/main/host/ok.ts', "import { createServices } from '../services';\nimport fs from 'node:fs';\nexport const used = [createServices, fs];\n"],
    ['src/main/chat/ok.ts', "import { openDatabase } from '../storage/database';\nimport { randomUUID } from 'node:crypto';\nexport const used = [openDatabase, randomUUID];\n"],
    ['src/shared/ok.ts', "import { z } from 'zod';\nimport { methodNames } from './contract';\nexport const used = [z, methodNames];\n"],
  ])('%s may import what it needs', async (file, code) => {
    expect(await boundaryErrors(file, code)).toEqual([]);
  });

  it('the real source tree keeps every boundary', async () => {
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
