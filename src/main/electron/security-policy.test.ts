import { describe, expect, it } from 'vitest';
import {
  externalLinkPrompt,
  GRANTED_PERMISSIONS,
  isExternalWebLink,
  isTrustedIpcSender,
  navigationVerdict,
  permissionGranted,
} from './security-policy';

const DEV = 'http://localhost:5173';

describe('navigation allow-list', () => {
  it.each([
    ['app://workbench/index.html', 'allow'],
    ['app://workbench/quick-chat', 'allow'],
    ['https://modelcontextprotocol.io/docs', 'open-externally-after-confirmation'],
    ['http://example.com/', 'open-externally-after-confirmation'],
    ['file:///etc/passwd', 'deny'],
    ['javascript:alert(1)', 'deny'],
    ['data:text/html,<script>alert(1)</script>', 'deny'],
    ['app://elsewhere/index.html', 'deny'],
    ['chrome://settings', 'deny'],
    ['https://user:password@example.com/', 'deny'],
    ['not a url', 'deny'],
  ] as const)('%s → %s', (url, verdict) => {
    expect(navigationVerdict(url)).toBe(verdict);
  });

  it('allows the dev server only when one is in use', () => {
    expect(navigationVerdict(`${DEV}/index.html`, DEV)).toBe('allow');
    expect(navigationVerdict(`${DEV}/index.html`)).toBe('open-externally-after-confirmation');
    expect(navigationVerdict('http://localhost:5174/', DEV)).toBe('open-externally-after-confirmation');
  });

  it('only lets http(s) links with a host leave the app', () => {
    expect(isExternalWebLink('https://example.com')).toBe(true);
    expect(isExternalWebLink('mailto:someone@example.com')).toBe(false);
    expect(isExternalWebLink('smb://server/share')).toBe(false);
    expect(isExternalWebLink('ms-settings:')).toBe(false);
  });

  it('asks before opening, with Cancel as the default answer', () => {
    const prompt = externalLinkPrompt('https://example.com/page?q=1');
    expect(prompt.message).toBe('Open example.com in your browser?');
    expect(prompt.detail).toContain('https://example.com/page?q=1');
    expect(prompt.buttons[prompt.defaultId]).toBe('Cancel');
    expect(prompt.buttons[prompt.cancelId]).toBe('Cancel');
  });
});

describe('permissions', () => {
  it.each([
    'media',
    'geolocation',
    'notifications',
    'midi',
    'hid',
    'serial',
    'usb',
    'clipboard-read',
    'openExternal',
    'fullscreen',
  ])('refuses %s to our own page', (permission) => {
    expect(permissionGranted(permission, 'app://workbench/index.html')).toBe(false);
  });

  it('grants only what the app needs, and only to our own pages', () => {
    expect([...GRANTED_PERMISSIONS]).toEqual(['clipboard-sanitized-write']);
    expect(permissionGranted('clipboard-sanitized-write', 'app://workbench/index.html')).toBe(true);
    expect(permissionGranted('clipboard-sanitized-write', 'https://evil.example/')).toBe(false);
  });
});

describe('IPC sender check', () => {
  const ours = { frameUrl: 'app://workbench/index.html', isOwnWindow: true, isMainFrame: true };
  it('serves the main frame of our own window showing our page', () => {
    expect(isTrustedIpcSender(ours)).toBe(true);
  });
  it.each([
    ['a subframe', { ...ours, isMainFrame: false }],
    ['a window that is not ours', { ...ours, isOwnWindow: false }],
    ['a page that navigated elsewhere', { ...ours, frameUrl: 'https://evil.example/' }],
    ['a frame without a URL', { ...ours, frameUrl: undefined }],
    ['a file: page', { ...ours, frameUrl: 'file:///tmp/x.html' }],
  ])('refuses %s', (_case, sender) => {
    expect(isTrustedIpcSender(sender)).toBe(false);
  });
});
