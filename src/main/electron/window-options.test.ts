// Imports only window-options.ts: it has a type-only import of 'electron', so this runs in plain Node.
import { describe, expect, it } from 'vitest';
import { APP_ENTRY_URL, APP_ORIGIN, isAppUrl, mainWindowOptions } from './window-options';

describe('mainWindowOptions', () => {
  const options = mainWindowOptions('/app/out/preload/index.cjs');
  const web = options.webPreferences ?? {};

  it('isolates and sandboxes the page', () => {
    expect(web.contextIsolation).toBe(true);
    expect(web.sandbox).toBe(true);
    expect(web.nodeIntegration).toBe(false);
    expect(web.nodeIntegrationInWorker).toBe(false);
    expect(web.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security on and risky features off', () => {
    expect(web.webSecurity).toBe(true);
    expect(web.allowRunningInsecureContent).toBe(false);
    expect(web.webviewTag).toBe(false);
    expect(web.experimentalFeatures).toBe(false);
    expect(web.navigateOnDragDrop).toBe(false);
  });

  it('passes the preload path through unchanged', () => {
    expect(web.preload).toBe('/app/out/preload/index.cjs');
    expect(mainWindowOptions('C:\\app\\preload.cjs').webPreferences?.preload).toBe('C:\\app\\preload.cjs');
  });

  it('shows the window only when it is ready', () => {
    expect(options.show).toBe(false);
  });
});

describe('isAppUrl', () => {
  it('accepts our own pages', () => {
    expect(APP_ORIGIN).toBe('app://workbench');
    expect(isAppUrl(APP_ENTRY_URL)).toBe(true);
    expect(isAppUrl('app://workbench/index.html')).toBe(true);
    expect(isAppUrl('app://workbench/chats/1?x=1#top')).toBe(true);
  });

  it.each([
    'file:///etc/passwd',
    'https://evil.example',
    'https://evil.example/app://workbench/index.html',
    'http://workbench/index.html',
    'app://evil/index.html',
    'app://workbench.evil.example/index.html',
    'app://workbench@evil.example/',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'about:blank',
    '',
    'not a url',
  ])('rejects %j', (url) => {
    expect(isAppUrl(url)).toBe(false);
    expect(isAppUrl(url, 'http://localhost:5173')).toBe(false);
  });

  it('accepts the dev server origin only when one is given', () => {
    expect(isAppUrl('http://localhost:5173/')).toBe(false);
    expect(isAppUrl('http://localhost:5173/index.html', 'http://localhost:5173')).toBe(true);
    expect(isAppUrl('http://localhost:5173/#/chat', 'http://localhost:5173/')).toBe(true);
    expect(isAppUrl('http://localhost:5174/', 'http://localhost:5173')).toBe(false);
    expect(isAppUrl('https://localhost:5173/', 'http://localhost:5173')).toBe(false);
    expect(isAppUrl('http://127.0.0.1:5173/', 'http://localhost:5173')).toBe(false);
  });

  it('treats a malformed dev server URL as no dev server', () => {
    expect(isAppUrl('http://localhost:5173/', 'not a url')).toBe(false);
  });
});
