import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

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
      // for the first screen to parse (issue 14 §4; docs/dev/benchmarks.md, renderer-first-load).
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
  },
});
