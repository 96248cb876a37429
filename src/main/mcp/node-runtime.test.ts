import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  bundledServerFileName,
  bundledServerSnapshotName,
  bundledServerStartArgs,
  detectNodeRuntime,
  resolveBundledServerEntry,
  snapshotKey,
} from './node-runtime';

const require = createRequire(import.meta.url);

describe('the Node runtime for bundled servers', () => {
  it('is the running Node in plain Node', () => {
    const node = { execPath: '/usr/bin/node', versions: { node: '22.23.3' } };
    expect(detectNodeRuntime(node)).toEqual({
      command: '/usr/bin/node',
      env: {},
      description: 'Node.js 22.23.3',
      snapshotKey: snapshotKey(node),
    });
  });

  it('keys startup snapshots by the whole Node: its versions, architecture and build options', () => {
    const node = {
      execPath: '/usr/bin/node',
      versions: { node: '22.23.3', v8: '12.4' },
      arch: 'x64',
      platform: 'linux',
      config: { variables: { node_shared: false } },
    };
    expect(snapshotKey(node)).toMatch(/^[0-9a-f]{16}$/);
    expect(snapshotKey({ ...node, execPath: '/elsewhere/node' })).toBe(snapshotKey(node));
    for (const other of [
      { ...node, versions: { node: '22.23.4', v8: '12.4' } },
      { ...node, arch: 'arm64' },
      { ...node, config: { variables: { node_shared: true } } },
    ]) {
      expect(snapshotKey(other)).not.toBe(snapshotKey(node));
    }
  });

  it('is the app binary with ELECTRON_RUN_AS_NODE=1 in Electron', () => {
    expect(
      detectNodeRuntime({
        execPath: '/opt/AI Workbench/ai-workbench',
        versions: { node: '22.20.0', electron: '45.4.1' },
      }),
    ).toEqual({
      command: '/opt/AI Workbench/ai-workbench',
      env: { ELECTRON_RUN_AS_NODE: '1' },
      description: "AI Workbench's Node.js 22.20.0 (Electron 45.4.1)",
    });
  });

  it('starts a bundled server from its startup snapshot only when the build made one for this Node', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-runtime-'));
    try {
      const name = '@modelcontextprotocol/server-filesystem';
      const manifest = path.join(root, 'node_modules', name, 'package.json');
      fs.mkdirSync(path.dirname(manifest), { recursive: true });
      fs.writeFileSync(
        manifest,
        JSON.stringify({ version: '1.2.3', bin: { 'mcp-server-filesystem': 'dist/index.js' } }),
      );
      const resolve = (): string => manifest;
      const servers = path.join(root, 'out', 'servers');
      const bundle = path.join(servers, bundledServerFileName(name, '1.2.3'));
      // No build: the package's bin, whatever the runtime.
      expect(bundledServerStartArgs(name, { snapshotKey: 'k1' }, resolve)).toEqual([
        path.join(root, 'node_modules', name, 'dist', 'index.js'),
      ]);
      fs.mkdirSync(servers, { recursive: true });
      fs.writeFileSync(bundle, '');
      fs.writeFileSync(path.join(servers, bundledServerSnapshotName(name, '1.2.3', 'k1')), '');
      expect(bundledServerStartArgs(name, { snapshotKey: 'k1' }, resolve)).toEqual([
        '--snapshot-blob',
        path.join(servers, 'server-filesystem-1.2.3.k1.blob'),
      ]);
      // Another Node (another key), or Electron's (none): the bundle.
      expect(bundledServerStartArgs(name, { snapshotKey: 'k2' }, resolve)).toEqual([bundle]);
      expect(bundledServerStartArgs(name, {}, resolve)).toEqual([bundle]);
      // A snapshot of another version of the package is never used.
      fs.writeFileSync(manifest, JSON.stringify({ version: '1.2.4', bin: 'dist/index.js' }));
      expect(bundledServerStartArgs(name, { snapshotKey: 'k1' }, resolve)).toEqual([
        path.join(root, 'node_modules', name, 'dist', 'index.js'),
      ]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it("finds each bundled server’s program through its package.json bin, or the build's one-file bundle of that version", () => {
    for (const name of ['@modelcontextprotocol/server-memory', '@modelcontextprotocol/server-everything'] as const) {
      const entry = resolveBundledServerEntry(name);
      expect(entry.endsWith('/dist/index.js')).toBe(true);
      expect(fs.existsSync(entry)).toBe(true);
    }
    const files = resolveBundledServerEntry('@modelcontextprotocol/server-filesystem');
    const manifest = JSON.parse(
      fs.readFileSync(require.resolve('@modelcontextprotocol/server-filesystem/package.json'), 'utf8'),
    ) as { version: string };
    // After `npm run build` the bundle of the installed version; before it (or for another version) the package's bin.
    expect(
      [
        `/out/servers/${bundledServerFileName('@modelcontextprotocol/server-filesystem', manifest.version)}`,
        '/dist/index.js',
      ].some((end) => files.endsWith(end)),
    ).toBe(true);
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
