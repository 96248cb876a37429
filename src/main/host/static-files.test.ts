import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStaticFiles } from './static-files';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-static-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html>shell');
  fs.writeFileSync(path.join(root, 'favicon.svg'), '<svg/>');
  fs.writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
  fs.writeFileSync(path.join(root, '..', `${path.basename(root)}-secret.txt`), 'secret');
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(path.join(root, '..', `${path.basename(root)}-secret.txt`), { force: true });
});

const text = (file: { body: Buffer } | null): string | null => file?.body.toString() ?? null;

describe('the renderer folder, served', () => {
  it('gives app routes the page shell, never cached; a hashed asset may be cached; another file is served as it is', async () => {
    const files = createStaticFiles(root);
    for (const route of ['/', '/settings', '/chat/abc'])
      expect(await files.read(route)).toMatchObject({ contentType: 'text/html; charset=utf-8', immutable: false });
    expect(text(await files.read('/'))).toBe('<!doctype html>shell');
    expect(await files.read('/assets/index-abc.js')).toMatchObject({
      contentType: 'text/javascript; charset=utf-8',
      immutable: true,
    });
    expect(await files.read('/favicon.svg')).toMatchObject({ contentType: 'image/svg+xml', immutable: false });
  });

  it('refuses what escapes the folder, a NUL, a bad escape and what does not exist', async () => {
    const files = createStaticFiles(root);
    const secret = `/../${path.basename(root)}-secret.txt`;
    for (const urlPath of [
      secret,
      `/assets/..%2F..%2F${path.basename(root)}-secret.txt`,
      '/assets/a%00.js',
      '/%E0%A4%A',
      '/assets/missing.js',
      '/missing.css',
    ]) {
      expect(await files.read(urlPath), urlPath).toBeNull();
    }
  });

  it('reads the assets once, as it starts, then answers from memory; an asset built later is found; the shell is read each time', async () => {
    const files = createStaticFiles(root);
    expect(text(await files.read('/assets/index-abc.js'))).toBe('console.log(1)');
    fs.writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'changed on disk');
    fs.writeFileSync(path.join(root, 'index.html'), 'a new shell');
    expect(text(await files.read('/assets/index-abc.js'))).toBe('console.log(1)');
    expect(text(await files.read('/'))).toBe('a new shell');
    expect(await files.read('/assets/later-def.js')).toBeNull();
    fs.writeFileSync(path.join(root, 'assets', 'later-def.js'), 'built later');
    expect(text(await files.read('/assets/later-def.js'))).toBe('built later');
  });
});
