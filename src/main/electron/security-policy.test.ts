import { describe, expect, it } from 'vitest';
import {
  externalLinkPrompt,
  frameNavigationVerdict,
  GRANTED_PERMISSIONS,
  isExternalWebLink,
  isTrustedIpcSender,
  isViewFrameUrl,
  navigationVerdict,
  permissionGranted,
} from './security-policy';

const DEV = 'http://localhost:5173';
const PAGE = 'app://workbench/index.html';
/** The app frame origin under both loopback names, as the window's view frames give it (view-frames.ts). */
const ORIGINS = { viewFrameOrigins: ['http://127.0.0.1:5000', 'http://localhost:5000'] };
const PROXY = 'http://127.0.0.1:5000/app-frame.html?csp=%7B%7D&chat=c1&view=call_1&host=app%3A%2F%2Fworkbench';

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
  const page = { url: PAGE, isMainFrame: true };
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
    expect(permissionGranted(permission, page, ORIGINS)).toBe(false);
  });

  it('grants only what the app needs, and only to the main frame of our own pages', () => {
    expect([...GRANTED_PERMISSIONS]).toEqual(['clipboard-sanitized-write']);
    expect(permissionGranted('clipboard-sanitized-write', page, ORIGINS)).toBe(true);
    expect(permissionGranted('clipboard-sanitized-write', { url: 'app://workbench', isMainFrame: true }, ORIGINS)).toBe(
      true,
    );
    expect(
      permissionGranted('clipboard-sanitized-write', { url: 'https://evil.example/', isMainFrame: true }, ORIGINS),
    ).toBe(false);
    expect(permissionGranted('clipboard-sanitized-write', { url: PAGE, isMainFrame: false }, ORIGINS)).toBe(false);
    expect(permissionGranted('clipboard-sanitized-write', { url: undefined, isMainFrame: true }, ORIGINS)).toBe(false);
  });

  describe("a view's frames (the proxy page on the app frame origin, the view's srcdoc inside it)", () => {
    const frames = [
      ['the proxy under 127.0.0.1', { url: PROXY, isMainFrame: false }],
      ['the proxy under localhost', { url: 'http://localhost:5000/app-frame.html', isMainFrame: false }],
      ["the view's own frame", { url: 'about:srcdoc', isMainFrame: false }],
      // Even were one to become the main frame, or its URL to be all a check gives.
      ['the proxy as a main frame', { url: PROXY, isMainFrame: true }],
      ['the frame origin alone', { url: 'http://127.0.0.1:5000', isMainFrame: false }],
    ] as const;
    const permissions = [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'clipboard-sanitized-write',
      'midi',
      'hid',
      'serial',
      'usb',
      'fullscreen',
      'pointerLock',
      'openExternal',
      'storage-access',
      'window-management',
    ];
    it.each(frames)('refuses %s every permission', (_frame, requester) => {
      for (const permission of permissions) expect(permissionGranted(permission, requester, ORIGINS)).toBe(false);
    });

    it('names a page on the frame origin a view frame, under either loopback name, and nothing else', () => {
      expect(isViewFrameUrl(PROXY, ORIGINS.viewFrameOrigins)).toBe(true);
      expect(isViewFrameUrl('http://localhost:5000/x', ORIGINS.viewFrameOrigins)).toBe(true);
      expect(isViewFrameUrl('http://127.0.0.1:5001/app-frame.html', ORIGINS.viewFrameOrigins)).toBe(false);
      expect(isViewFrameUrl(PAGE, ORIGINS.viewFrameOrigins)).toBe(false);
      expect(isViewFrameUrl('not a url', ORIGINS.viewFrameOrigins)).toBe(false);
    });
  });

  it('grants the dev server page only while it is in use', () => {
    const devPage = { url: `${DEV}/index.html`, isMainFrame: true };
    expect(permissionGranted('clipboard-sanitized-write', devPage, { ...ORIGINS, devServerUrl: DEV })).toBe(true);
    expect(permissionGranted('clipboard-sanitized-write', devPage, ORIGINS)).toBe(false);
  });
});

describe('navigation from the frames of the window', () => {
  it('lets our own page (or no frame) navigate the window as the allow-list says', () => {
    expect(frameNavigationVerdict({ url: PAGE, isMainFrame: true, initiatorUrl: PAGE }, ORIGINS)).toBe('allow');
    expect(frameNavigationVerdict({ url: PAGE, isMainFrame: true }, ORIGINS)).toBe('allow');
    expect(
      frameNavigationVerdict({ url: 'https://example.com/', isMainFrame: true, initiatorUrl: PAGE }, ORIGINS),
    ).toBe('open-externally-after-confirmation');
    expect(frameNavigationVerdict({ url: 'file:///etc/passwd', isMainFrame: true }, ORIGINS)).toBe('deny');
  });

  it.each([
    ['the proxy page', PROXY],
    ["the view's own frame", 'about:srcdoc'],
    ['another site', 'https://evil.example/'],
    ['a frame already gone (main.ts gives its URL as empty)', ''],
  ])('refuses the window a navigation %s started, and offers no link: links go through ui/open-link', (_frame, by) => {
    for (const url of [PAGE, 'https://example.com/', 'javascript:alert(1)'])
      expect(frameNavigationVerdict({ url, isMainFrame: true, initiatorUrl: by }, ORIGINS)).toBe('deny');
  });

  it("lets a frame load only the frame origin's proxy page and the view's srcdoc", () => {
    const frame = (url: string): string => frameNavigationVerdict({ url, isMainFrame: false }, ORIGINS);
    expect(frame(PROXY)).toBe('allow');
    expect(frame('http://localhost:5000/app-frame.html?slot=AAAAAAAAAAAAAAAAAAAAAA')).toBe('allow');
    expect(frame('about:srcdoc')).toBe('allow');
    expect(frame('about:blank')).toBe('allow');
    for (const url of [
      'https://example.com/',
      'http://127.0.0.1:5000/csp-report',
      'http://127.0.0.1:5001/app-frame.html',
      PAGE,
      'data:text/html,<script>alert(1)</script>',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'not a url',
    ])
      expect(frame(url)).toBe('deny');
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
