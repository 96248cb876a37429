import fs from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { bundledServerFileName, detectNodeRuntime, resolveBundledServerEntry } from './node-runtime';

const require = createRequire(import.meta.url);

describe('the Node runtime for bundled servers', () => {
  it('is the running Node in plain Node', () => {
    expect(detectNodeRuntime({ execPath: '/usr/bin/node', versions: { node: '22.23.3' } })).toEqual({ command: '/usr/bin/node', env: {}, description: 'Node.js 22.23.3' });
  });

  it('is the app binary with ELECTRON_RUN_AS_NODE=1 in Electron', () => {
    expect(detectNodeRuntime({ execPath: '/opt/AI Workbench/ai-workbench', versions: { node: '22.20.0', electron: '45.4.1' } })).toEqual({
      command: '/opt/AI Workbench/ai-workbench',
      env: { ELECTRON_RUN_AS_NODE: '1' },
      description: "AI Workbench's Node.js 22.20.0 (Electron 45.4.1)",
    });
  });

  it('finds each bundled server’s program through its package.json bin, or the build\'s one-file bundle of that version', () => {
    for (const name of ['@modelcontextprotocol/server-memory', '@modelcontextprotocol/server-everything'] as const) {
      const entry = resolveBundledServerEntry(name);
      expect(entry.endsWith('/dist/index.js')).toBe(true);
      expect(fs.existsSync(entry)).toBe(true);
    }
    const files = resolveBundledServerEntry('@modelcontextprotocol/server-filesystem');
    const manifest = JSON.parse(fs.readFileSync(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), 'utf8')) as { version: string };
    // After `npm run build` the bundle of the installed version; before it (or for another version) the package's bin.
    expect([`/out/servers/${bundledServerFileName('@modelcontextprotocol/server-filesystem', manifest.version)}`, '/dist/index.js'].some((end) => files.endsWith(end))).toBe(true);
    expect(fs.existsSync(files)).toBe(true);
  });

  it('names a package that is not installed', () => {
    expect(() =>
      resolveBundledServerEntry('@modelcontextprotocol/server-memory', () => {
        throw new Error('Cannot find module');
      }),
    ).toThrow('The bundled MCP server @modelcontextprotocol/server-memory is not installed with the app.');
  });
});
