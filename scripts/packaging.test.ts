// The packaging configuration (electron-builder.json) checked item by item: installers can only be built on a
// machine that can download Electron, so what can be checked here is the configuration itself.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './lib/project.ts';

interface BuilderConfig {
  files: string[];
  extraResources: Array<{ from: string; to: string }>;
  asar: boolean;
  asarUnpack: string[];
  electronFuses: Record<string, boolean>;
  mac: { hardenedRuntime: boolean; entitlements: string; icon: string; target: Array<{ target: string }> };
  win: { icon: string; target: Array<{ target: string }> };
  linux: { icon: string; target: string[] };
}

const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'electron-builder.json'), 'utf8')) as BuilderConfig;

describe('packaging', () => {
  it('flips the fuses that close Node entry points, keeping RunAsNode for the bundled MCP servers', () => {
    expect(config.electronFuses).toEqual({
      // Bundled Node-based MCP servers run as children of the app binary with ELECTRON_RUN_AS_NODE=1 (docs/user/desktop.md).
      runAsNode: true,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
  });

  it('ships the icon beside the asar, where the tray reads it (process.resourcesPath/icon.png)', () => {
    expect(config.extraResources).toContainEqual({ from: 'resources/icon.png', to: 'icon.png' });
    expect(fs.existsSync(path.join(ROOT, 'resources', 'icon.png'))).toBe(true);
  });

  it('ships only the build output in an asar, with native modules and MCP servers unpacked', () => {
    expect(config.asar).toBe(true);
    expect(config.files).toContain('out/**');
    expect(config.files).not.toContain('src/**');
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['**/*.node', 'node_modules/@modelcontextprotocol/server-*/**']),
    );
  });

  it('builds a hardened, entitled dmg for macOS, nsis for Windows, AppImage and deb for Linux', () => {
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.mac.target.map((target) => target.target)).toEqual(['dmg']);
    const entitlements = fs.readFileSync(path.join(ROOT, config.mac.entitlements), 'utf8');
    expect(entitlements).toContain('com.apple.security.cs.allow-jit');
    expect(entitlements).not.toContain('disable-library-validation');
    expect(config.win.target.map((target) => target.target)).toEqual(['nsis']);
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
  });

  it('has a 1024×1024 PNG icon for every platform', () => {
    for (const icon of new Set([config.mac.icon, config.win.icon, config.linux.icon])) {
      const png = fs.readFileSync(path.join(ROOT, icon));
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 1024]);
    }
  });
});
