import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtAssets } from './assets';

const root = path.resolve(import.meta.dirname, '../..');

describe('builtAssets: one place that knows the build layout, wherever the bundler put the calling code', () => {
  it.each([
    ['an entry', 'out/main/cli.js'],
    ['a shared chunk (where the CLI session module lands)', 'out/main/chunks/session-CgtVQoEu.js'],
  ])('from %s of a build', (_where, file) => {
    expect(builtAssets(path.join(root, file))).toEqual({
      mode: 'built',
      auditWorker: path.join(root, 'out/main/audit-worker.js'),
      auditShipWorker: path.join(root, 'out/main/audit-ship-worker.js'),
      rendererDir: path.join(root, 'out/renderer'),
      preload: path.join(root, 'out/preload/index.cjs'),
      icon: path.join(root, 'resources/icon.png'),
    });
  });

  it('from a packaged app (out/ inside app.asar)', () => {
    const asar = path.join('/opt/AI Workbench/resources/app.asar');
    expect(builtAssets(path.join(asar, 'out/main/index.js'))).toMatchObject({
      auditWorker: path.join(asar, 'out/main/audit-worker.js'),
      rendererDir: path.join(asar, 'out/renderer'),
    });
  });

  it('from the sources (tests, tsx): the TypeScript worker, which exists', () => {
    const assets = builtAssets();
    expect(assets).toMatchObject({ mode: 'source', auditWorker: path.join(root, 'src/main/audit/audit-worker.ts') });
    expect(fs.existsSync(assets.auditWorker)).toBe(true);
    expect(fs.existsSync(assets.auditShipWorker)).toBe(true);
    expect(fs.existsSync(assets.icon)).toBe(true);
  });

  it('refuses, naming the file, a place that is neither', () => {
    expect(() => builtAssets('/tmp/elsewhere/main.js')).toThrow(
      /\/tmp\/elsewhere\/main\.js is neither under out\/main\//,
    );
    expect(() => builtAssets(path.join(root, 'out/renderer/chunks/x.js'))).toThrow(/neither/);
  });
});
