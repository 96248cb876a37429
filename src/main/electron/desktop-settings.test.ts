import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acceleratorProblem, DEFAULT_DESKTOP_SETTINGS } from '../../shared/desktop';
import { openSettingsStore, SettingsError } from '../settings/settings-store';
import { openDesktopSettings } from './desktop-settings';

const dirs: string[] = [];
function settingsFile(content?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-desktop-'));
  dirs.push(dir);
  const file = path.join(dir, 'settings.json');
  if (content !== undefined) fs.writeFileSync(file, JSON.stringify(content));
  return file;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the desktop settings section', () => {
  it('defaults to Ctrl/Cmd+Shift+Space, notifications on and the tray icon shown', () => {
    expect(openDesktopSettings(openSettingsStore(settingsFile())).get()).toEqual(DEFAULT_DESKTOP_SETTINGS);
    expect(DEFAULT_DESKTOP_SETTINGS).toEqual({
      quickChatShortcut: 'CommandOrControl+Shift+Space',
      notifyApprovals: true,
      tray: true,
    });
  });

  it('takes another shortcut, or none, and saves changes in settings.json', () => {
    const file = settingsFile({ version: 2, desktop: { quickChatShortcut: 'Alt+Shift+K', tray: false } });
    const desktop = openDesktopSettings(openSettingsStore(file));
    expect(desktop.get()).toEqual({ quickChatShortcut: 'Alt+Shift+K', notifyApprovals: true, tray: false });
    desktop.update((current) => ({ ...current, quickChatShortcut: null }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).desktop).toEqual({
      quickChatShortcut: null,
      notifyApprovals: true,
      tray: false,
    });
  });

  it.each([
    [{ quickChatShortcut: 'Ctrl+Shift+' }, /desktop\.quickChatShortcut: is not a usable shortcut: has an empty part/],
    [{ quickChatShortcut: 'Space' }, /desktop\.quickChatShortcut: is not a usable shortcut: needs a modifier/],
    [{ notifyApprovals: 'yes' }, /desktop\.notifyApprovals/],
    [{ badge: true }, /desktop: Unrecognized key: "badge"/],
  ])('refuses %j naming the field, and leaves the file as it is', (desktop, message) => {
    const file = settingsFile({ version: 2, desktop });
    const before = fs.readFileSync(file, 'utf8');
    const store = openSettingsStore(file);
    expect(() => openDesktopSettings(store)).toThrow(SettingsError);
    expect(() => openDesktopSettings(store)).toThrow(message);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});

describe('shortcuts in Electron accelerator syntax', () => {
  it.each([
    'CommandOrControl+Shift+Space',
    'CmdOrCtrl+Alt+K',
    'Ctrl+Shift+Plus',
    'Super+Enter',
    'F12',
    'Shift+F5',
    'Option+/',
    'Control+num5',
    'alt+shift+q',
  ])('accepts %s', (accelerator) => expect(acceleratorProblem(accelerator)).toBeNull());

  it.each([
    ['Ctrl+Shift+', 'has an empty part (write the + key as "Plus")'],
    ['Hyper+K', '"hyper" is not a modifier (use CommandOrControl, Control, Alt, Shift, Super…)'],
    ['Ctrl+Ctrl+K', 'names a modifier twice'],
    ['Ctrl+Shift+Banana', '"Banana" is not a key Electron knows (A–Z, 0–9, F1–F24, Space, Enter, Up…)'],
    ['Ctrl+F25', '"F25" is not a key Electron knows (A–Z, 0–9, F1–F24, Space, Enter, Up…)'],
    ['K', 'needs a modifier (a global shortcut without one would take the key from every app)'],
  ])('refuses %s: %s', (accelerator, problem) => expect(acceleratorProblem(accelerator)).toBe(problem));
});
