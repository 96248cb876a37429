import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openSettingsStore, SettingsError } from './settings-store';

const UiSchema = z.object({
  theme: z.enum(['light', 'dark', 'system']).default('system'),
  fontSize: z.number().int().min(10).max(24).default(14),
});
const UI_DEFAULTS = UiSchema.parse({});

const dirs: string[] = [];
function tempFile(content?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-settings-'));
  dirs.push(dir);
  const file = path.join(dir, 'settings.json');
  if (content !== undefined) fs.writeFileSync(file, content);
  return file;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('settings store', () => {
  it('gives the defaults when there is no file, and writes nothing until something changes', () => {
    const file = tempFile();
    const ui = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    expect(ui.get()).toEqual({ theme: 'system', fontSize: 14 });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('writes a section, keeps the others and unknown keys, and tells listeners', () => {
    const file = tempFile(JSON.stringify({ version: 2, mcpServers: { Files: { command: 'x' } }, future: [1, 2] }));
    const ui = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    const seen: unknown[] = [];
    ui.onDidChange((value) => seen.push(value));
    ui.update((current) => ({ ...current, theme: 'dark' }));
    expect(seen).toEqual([{ theme: 'dark', fontSize: 14 }]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      version: 2,
      mcpServers: { Files: { command: 'x' } },
      future: [1, 2],
      ui: { theme: 'dark', fontSize: 14 },
    });
    expect(openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS).get().theme).toBe('dark');
  });

  it('keeps a section another process changed meanwhile', () => {
    const file = tempFile('{}');
    const store = openSettingsStore(file);
    const ui = store.section('ui', UiSchema, UI_DEFAULTS);
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { Added: { command: 'by the CLI' } } }));
    ui.update((current) => ({ ...current, fontSize: 16 }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).mcpServers).toEqual({ Added: { command: 'by the CLI' } });
  });

  it('applies a change to the section as another process left it, not to its own older copy (two stores, one file)', () => {
    const file = tempFile('{}');
    const app = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    const cli = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    expect(app.get()).toEqual(UI_DEFAULTS);
    cli.update((current) => ({ ...current, theme: 'dark' }));
    const seen: unknown[] = [];
    app.onDidChange((value) => seen.push(value));
    // The app still holds the defaults; its change must not put theme back to 'system'.
    app.update((current) => ({ ...current, fontSize: 18 }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).ui).toEqual({ theme: 'dark', fontSize: 18 });
    expect(app.get()).toEqual({ theme: 'dark', fontSize: 18 });
    expect(seen).toEqual([{ theme: 'dark', fontSize: 18 }]);
    // And the other way round.
    cli.update((current) => ({ ...current, theme: 'light' }));
    expect(openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS).get()).toEqual({
      theme: 'light',
      fontSize: 18,
    });
  });

  it('sees a section another process removed: the change applies to the defaults', () => {
    const file = tempFile(JSON.stringify({ ui: { theme: 'dark', fontSize: 20 } }));
    const app = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    fs.writeFileSync(file, JSON.stringify({ version: 2 }));
    app.update((current) => ({ ...current, theme: 'light' }));
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).ui).toEqual({ theme: 'light', fontSize: 14 });
  });

  it('refuses a change when another process left the section invalid, and writes nothing', () => {
    const file = tempFile('{}');
    const app = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    const invalid = JSON.stringify({ ui: { theme: 'purple' } });
    fs.writeFileSync(file, invalid);
    expect(() => app.update((current) => ({ ...current, fontSize: 12 }))).toThrow(/ui\.theme/);
    expect(fs.readFileSync(file, 'utf8')).toBe(invalid);
    expect(app.get()).toEqual(UI_DEFAULTS);
  });

  it('refuses an invalid update and writes nothing', () => {
    const file = tempFile('{"ui":{"theme":"light"}}');
    const ui = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    expect(() => ui.update((current) => ({ ...current, fontSize: 99 }))).toThrow(/ui\.fontSize/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"ui":{"theme":"light"}}');
    expect(ui.get()).toEqual({ theme: 'light', fontSize: 14 });
  });

  it.each([
    ['broken JSON', '{"ui": {"theme": "dark",}', /not valid JSON/],
    ['not an object', '[1, 2, 3]', /must hold a JSON object/],
  ])('names the file when it holds %s, and leaves it as it is', (_case, content, message) => {
    const file = tempFile(content);
    expect(() => openSettingsStore(file)).toThrow(SettingsError);
    expect(() => openSettingsStore(file)).toThrow(message);
    expect(() => openSettingsStore(file)).toThrow(file);
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
  });

  it('names the invalid field of a section, and leaves the file as it is', () => {
    const content = JSON.stringify({ ui: { theme: 'purple' } });
    const file = tempFile(content);
    const store = openSettingsStore(file);
    expect(() => store.section('ui', UiSchema, UI_DEFAULTS)).toThrow(/ui\.theme/);
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
  });

  it('will not overwrite a file that became unreadable after it was opened', () => {
    const file = tempFile('{}');
    const ui = openSettingsStore(file).section('ui', UiSchema, UI_DEFAULTS);
    fs.writeFileSync(file, '{ half written');
    expect(() => ui.update((current) => ({ ...current, theme: 'dark' }))).toThrow(/not valid JSON/);
    expect(fs.readFileSync(file, 'utf8')).toBe('{ half written');
  });
});
