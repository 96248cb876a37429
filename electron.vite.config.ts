import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Rolldown } from 'vite';

type ChunkingContext = Parameters<Extract<Rolldown.CodeSplittingGroup['name'], (...args: never[]) => unknown>>[1];

/** The modules `from` imports, directly or not, without dynamic imports. */
function staticClosure(from: string, context: ChunkingContext): Set<string> {
  const seen = new Set<string>();
  const pending = [from];
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if (seen.has(id)) continue;
    seen.add(id);
    pending.push(...(context.getModuleInfo(id)?.importedIds ?? []));
  }
  return seen;
}

/**
 * Every module the app's code (`dynamicEntry`, loaded by the page's entry `entry`) needs before it can run, in its
 * one chunk, but for those the entry has already loaded. Left to itself, the bundler splits off each module that a
 * chunk loaded later shares with it (a dialog, the icons, React's JSX runtime): eight requests before the first
 * screen where three do, and a browser opens six connections to a host at a time, so the last ones waited while the
 * server answered the chat list (docs/dev/benchmarks.md, app-start).
 */
function firstScreenChunk(entry: string, dynamicEntry: string): Rolldown.CodeSplittingGroup {
  let members: Set<string> | undefined;
  return {
    name(id, context) {
      if (!members) {
        const loaded = staticClosure(entry, context);
        members = new Set([...staticClosure(dynamicEntry, context)].filter((member) => !loaded.has(member)));
      }
      return members.has(id) ? 'start' : null;
    },
    // The group holds all it needs but for what the entry loaded first: nothing of the entry's may move into it.
    includeDependenciesRecursively: false,
  };
}

export default defineConfig({
  main: {
    build: {
      // commander is bundled (as ESM) rather than loaded as a CommonJS package: every CLI command starts a few ms
      // sooner without Node's CommonJS export scan (cli-start in docs/dev/benchmarks.md).
      externalizeDeps: { exclude: ['commander', 'zod', '@modelcontextprotocol/sdk', 'picomatch'] },
      // The Electron app, browser mode and the CLI (which must never load `electron`);
      // the worker thread that verifies slices of the audit log, and the one that ships it.
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          browser: resolve('src/main/browser.ts'),
          // The `workbench` CLI (bin/workbench.js runs it): the same services, in a terminal.
          cli: resolve('src/cli/main.ts'),
          'audit-worker': resolve('src/main/audit/audit-worker.ts'),
          // The thread that reads, encodes and sends audit rows to the organisation's log pipeline.
          'audit-ship-worker': resolve('src/main/audit/shipping/ship-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      // A sandboxed preload can only require `electron`: bundle everything else into one CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    plugins: [react()],
    build: {
      // electron-vite leaves the renderer unminified by default: 1.4 MB of JavaScript instead of about half that
      // for the first screen to parse (docs/dev/benchmarks.md, renderer-first-load).
      minify: true,
      rollupOptions: {
        input: { index: resolve('src/renderer/index.html') },
        output: {
          codeSplitting: {
            groups: [firstScreenChunk(resolve('src/renderer/src/main.tsx'), resolve('src/renderer/src/start.tsx'))],
          },
        },
      },
    },
  },
});
