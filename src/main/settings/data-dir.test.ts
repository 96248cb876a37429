import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveDataDir } from './data-dir';

const home = '/home/ada';

describe('resolveDataDir', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('uses WORKBENCH_HOME when it is set, on every platform', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      expect(resolveDataDir({ env: { WORKBENCH_HOME: '/srv/workbench' }, platform, homedir: home })).toBe(
        path.resolve('/srv/workbench'),
      );
    }
  });

  it('resolves a relative WORKBENCH_HOME against the working folder and trims it', () => {
    const resolved = resolveDataDir({ env: { WORKBENCH_HOME: '  data/here  ' }, platform: 'linux', homedir: home });
    expect(path.isAbsolute(resolved)).toBe(true);
    expect(resolved).toBe(path.join(process.cwd(), 'data', 'here'));
  });

  it('ignores an empty or blank WORKBENCH_HOME', () => {
    expect(resolveDataDir({ env: { WORKBENCH_HOME: '' }, platform: 'linux', homedir: home })).toBe(
      '/home/ada/.config/AI Workbench',
    );
    expect(resolveDataDir({ env: { WORKBENCH_HOME: '   ' }, platform: 'linux', homedir: home })).toBe(
      '/home/ada/.config/AI Workbench',
    );
  });

  it('on Linux defaults to ~/.config/AI Workbench', () => {
    expect(resolveDataDir({ env: {}, platform: 'linux', homedir: home })).toBe('/home/ada/.config/AI Workbench');
    expect(resolveDataDir({ env: {}, platform: 'freebsd', homedir: home })).toBe('/home/ada/.config/AI Workbench');
  });

  it('on Linux honours XDG_CONFIG_HOME, unless it is blank', () => {
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg/config' }, platform: 'linux', homedir: home })).toBe(
      '/xdg/config/AI Workbench',
    );
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: ' ' }, platform: 'linux', homedir: home })).toBe(
      '/home/ada/.config/AI Workbench',
    );
  });

  it('on macOS uses ~/Library/Application Support/AI Workbench', () => {
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/ignored' }, platform: 'darwin', homedir: '/Users/ada' })).toBe(
      '/Users/ada/Library/Application Support/AI Workbench',
    );
  });

  it('on Windows uses %APPDATA%\\AI Workbench, or AppData\\Roaming under the home folder without it', () => {
    expect(
      resolveDataDir({
        env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' },
        platform: 'win32',
        homedir: 'C:\\Users\\ada',
      }),
    ).toBe('C:\\Users\\ada\\AppData\\Roaming\\AI Workbench');
    expect(resolveDataDir({ env: {}, platform: 'win32', homedir: 'C:\\Users\\ada' })).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\AI Workbench',
    );
  });

  it('reads the real environment when called without arguments', () => {
    vi.stubEnv('WORKBENCH_HOME', '/tmp/aiwb-from-env');
    expect(resolveDataDir()).toBe(path.resolve('/tmp/aiwb-from-env'));
  });
});
