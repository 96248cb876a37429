import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { detectNodeRuntime, resolveBundledServerEntry } from './node-runtime';

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

  it('finds each bundled server’s program through its package.json bin', () => {
    for (const name of ['@modelcontextprotocol/server-filesystem', '@modelcontextprotocol/server-memory', '@modelcontextprotocol/server-everything'] as const) {
      const entry = resolveBundledServerEntry(name);
      expect(entry.endsWith('/dist/index.js')).toBe(true);
      expect(fs.existsSync(entry)).toBe(true);
    }
  });

  it('names a package that is not installed', () => {
    expect(() =>
      resolveBundledServerEntry('@modelcontextprotocol/server-memory', () => {
        throw new Error('Cannot find module');
      }),
    ).toThrow('The bundled MCP server @modelcontextprotocol/server-memory is not installed with the app.');
  });
});
