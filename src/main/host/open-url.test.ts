import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  browserCommand,
  openInDefaultBrowser,
  openThroughRedirectPage,
  redirectPageHtml,
  REDIRECT_FOLDER_NAME,
  writeRedirectPage,
} from './open-url';
import { titleUnless } from '../testing/skip-reason';

const windows = process.platform === 'win32';

const TOKEN = 'sEcReT-tOkEn_0123456789abcdefghijklmnopqrstuvwxyz';
const URL_WITH_TOKEN = `http://127.0.0.1:4790/#token=${TOKEN}`;

const dirs: string[] = [];
function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-open-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A spawn that records the command line instead of running anything. */
function fakeSpawn(): {
  spawn: (file: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
  calls: { file: string; args: readonly string[] }[];
} {
  const calls: { file: string; args: readonly string[] }[] = [];
  return {
    calls,
    spawn: (file, args) => {
      calls.push({ file, args });
      return Object.assign(new EventEmitter(), { unref: () => {} }) as unknown as ChildProcess;
    },
  };
}

describe('opening browser mode in the default browser', () => {
  it('puts only the redirect file on the command line, on every platform: never the token', () => {
    const page = writeRedirectPage(tempDataDir(), URL_WITH_TOKEN);
    for (const platform of ['linux', 'darwin', 'win32', 'freebsd'] as const) {
      const { spawn, calls } = fakeSpawn();
      expect(openInDefaultBrowser(page.fileUrl, { platform, env: { DISPLAY: ':0' }, spawn })).toBe(true);
      expect(calls).toHaveLength(1);
      const commandLine = [calls[0]?.file, ...(calls[0]?.args ?? [])].join(' ');
      expect(commandLine).not.toContain(TOKEN);
      expect(commandLine).not.toContain('token');
      expect(calls[0]?.args.at(-1)).toBe(page.fileUrl);
      expect(page.fileUrl).toMatch(/^file:\/\//);
    }
  });

  it('opens nothing without a desktop (no DISPLAY or WAYLAND_DISPLAY on Linux)', () => {
    const { spawn, calls } = fakeSpawn();
    expect(openInDefaultBrowser('file:///x.html', { platform: 'linux', env: {}, spawn })).toBe(false);
    expect(calls).toHaveLength(0);
    expect(browserCommand('file:///x.html', 'linux', { WAYLAND_DISPLAY: 'wayland-0' })).toEqual({
      file: 'xdg-open',
      args: ['file:///x.html'],
    });
  });

  it.skipIf(windows)(
    titleUnless(
      'writes the page 0600 in a 0700 folder of the data folder, whatever the umask, and removes it',
      windows,
      'Windows has no POSIX file modes',
    ),
    () => {
      const dataDir = tempDataDir();
      const previous = process.umask(0o000);
      let page;
      try {
        page = writeRedirectPage(dataDir, URL_WITH_TOKEN, 4242);
      } finally {
        process.umask(previous);
      }
      expect(page.file).toBe(path.join(dataDir, REDIRECT_FOLDER_NAME, 'browser-4242.html'));
      expect(fileURLToPath(page.fileUrl)).toBe(page.file);
      expect(fs.statSync(page.file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(page.file)).mode & 0o777).toBe(0o700);
      expect(fs.readFileSync(page.file, 'utf8')).toBe(redirectPageHtml(URL_WITH_TOKEN));
      page.remove();
      page.remove();
      expect(fs.existsSync(page.file)).toBe(false);
    },
  );

  it.skipIf(windows)(
    titleUnless(
      'tightens a looser folder it finds, and never writes through a link left where the page goes',
      windows,
      'Windows has no POSIX file modes',
    ),
    () => {
      const dataDir = tempDataDir();
      const folder = path.join(dataDir, REDIRECT_FOLDER_NAME);
      fs.mkdirSync(folder, { mode: 0o755 });
      fs.chmodSync(folder, 0o755);
      const elsewhere = path.join(dataDir, 'elsewhere.txt');
      fs.writeFileSync(elsewhere, 'untouched');
      fs.symlinkSync(elsewhere, path.join(folder, 'browser-7.html'));
      const page = writeRedirectPage(dataDir, URL_WITH_TOKEN, 7);
      expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
      expect(fs.lstatSync(page.file).isSymbolicLink()).toBe(false);
      expect(fs.readFileSync(elsewhere, 'utf8')).toBe('untouched');
    },
  );

  it('redirects by meta refresh and by script to exactly the address, escaped for HTML and JS', () => {
    const html = redirectPageHtml(URL_WITH_TOKEN);
    expect(html).toContain(`<meta http-equiv="refresh" content="0;url=${URL_WITH_TOKEN}">`);
    expect(html).toContain(`location.replace(${JSON.stringify(URL_WITH_TOKEN)});`);
    const hostile = redirectPageHtml('http://127.0.0.1:1/#token=a"></script><script>alert(1)</script>&');
    expect(hostile).not.toContain('"><');
    expect(hostile).not.toContain('</script><script>');
    expect(hostile).toContain('&quot;&gt;&lt;/script&gt;');
    expect(hostile.match(/<script>/g)).toHaveLength(1);
  });
});

describe('opening an OAuth sign-in page', () => {
  const AUTHORIZE_URL =
    'https://login.example/authorize?response_type=code&client_id=wb-client&code_challenge=Q2hhbGxlbmdlQ2hhbGxlbmdl&code_challenge_method=S256&redirect_uri=http%3A%2F%2F127.0.0.1%3A40061%2Fcallback&state=SiGnInStAtE0123456789';

  it('puts only a one-time owner-only page on the command line, never the authorize URL, its state, challenge or port', () => {
    const dataDir = tempDataDir();
    const { spawn, calls } = fakeSpawn();
    expect(openThroughRedirectPage(dataDir, AUTHORIZE_URL, { platform: 'linux', env: { DISPLAY: ':0' }, spawn })).toBe(
      true,
    );
    expect(calls).toHaveLength(1);
    const argv = [calls[0]?.file, ...(calls[0]?.args ?? [])].join(' ');
    for (const secret of ['SiGnInStAtE0123456789', 'Q2hhbGxlbmdlQ2hhbGxlbmdl', '40061', 'wb-client', 'login.example'])
      expect(argv).not.toContain(secret);
    const fileUrl = calls[0]?.args.at(-1) as string;
    expect(fileUrl).toMatch(/^file:\/\//);
    const file = fileURLToPath(fileUrl);
    // The page leads on to the authorize URL, and nobody but its owner can read it.
    expect(fs.readFileSync(file, 'utf8')).toContain(JSON.stringify(AUTHORIZE_URL));
    if (!windows) {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    }
    // One page per sign-in: a second one does not reuse the first's name.
    openThroughRedirectPage(dataDir, `${AUTHORIZE_URL}2`, { platform: 'linux', env: { DISPLAY: ':0' }, spawn });
    expect(calls[1]?.args.at(-1)).not.toBe(fileUrl);
  });

  it('writes nothing and opens nothing where there is no desktop (the address is shown instead)', () => {
    const dataDir = tempDataDir();
    const { spawn, calls } = fakeSpawn();
    expect(openThroughRedirectPage(dataDir, AUTHORIZE_URL, { platform: 'linux', env: {}, spawn })).toBe(false);
    expect(calls).toHaveLength(0);
    expect(fs.existsSync(path.join(dataDir, REDIRECT_FOLDER_NAME))).toBe(false);
  });
});
