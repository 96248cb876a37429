import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { SettingsReload } from '../../shared/app';
import { openSettingsStore, SettingsError } from './settings-store';
import { watchSettings, type SettingsWatch } from './settings-watch';

/** settings.json changed while the app runs (docs/user/data.md, "Editing settings.json"), with real files. */
const UiSchema = z.object({ theme: z.enum(['light', 'dark', 'system']).default('system') });
const ChatSchema = z.object({ rounds: z.number().int().min(1).default(8) });

const dirs: string[] = [];
const watches: SettingsWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.stop();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp(content: object) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-watch-'));
  dirs.push(dir);
  const file = path.join(dir, 'settings.json');
  fs.writeFileSync(file, JSON.stringify({ version: 2, ...content }));
  const store = openSettingsStore(file);
  const ui = store.section('ui', UiSchema, UiSchema.parse({}));
  const chat = store.section('chat', ChatSchema, ChatSchema.parse({}));
  const watch = watchSettings(store, { debounceMs: 20 });
  watches.push(watch);
  const seen: SettingsReload[] = [];
  watch.onDidReload((reload) => seen.push(reload));
  watch.start();
  /** The next reload the watch reports (a guard of 5 s turns a missed change into a failure, not a hang). */
  const next = (): Promise<SettingsReload> =>
    new Promise((resolve, reject) => {
      const guard = setTimeout(() => reject(new Error('settings.json was not read again')), 5000);
      const off = watch.onDidReload((reload) => {
        clearTimeout(guard);
        off();
        resolve(reload);
      });
    });
  return { dir, file, store, ui, chat, watch, seen, next };
}

/** Saves as editors and this app do: a temporary file beside it, renamed over it (a new inode each time). */
function saveByRename(file: string, document: object): void {
  const temporary = path.join(path.dirname(file), `.settings.json.${Math.random().toString(36).slice(2)}~`);
  fs.writeFileSync(temporary, JSON.stringify(document, null, 2));
  fs.renameSync(temporary, file);
}

describe('settings.json watched while the app runs', () => {
  it('a change written in place is read again and told to the section that changed, not to the others', async () => {
    const { file, ui, chat, next } = setUp({ ui: { theme: 'light' }, chat: { rounds: 3 } });
    const uiSeen: unknown[] = [];
    const chatSeen: unknown[] = [];
    ui.onDidChange((value) => uiSeen.push(value));
    chat.onDidChange((value) => chatSeen.push(value));
    const reloaded = next();
    fs.writeFileSync(file, JSON.stringify({ version: 2, ui: { theme: 'dark' }, chat: { rounds: 3 } }));
    expect(await reloaded).toEqual({ kind: 'reloaded', file, sections: ['ui'] });
    expect(ui.get()).toEqual({ theme: 'dark' });
    expect(uiSeen).toEqual([{ theme: 'dark' }]);
    expect(chatSeen).toEqual([]);
  });

  it('keeps watching across saves that rename a new file over it', async () => {
    const { file, chat, next } = setUp({ chat: { rounds: 3 } });
    for (const rounds of [4, 5, 6]) {
      const reloaded = next();
      saveByRename(file, { version: 2, chat: { rounds } });
      expect(await reloaded).toMatchObject({ kind: 'reloaded', sections: ['chat'] });
      expect(chat.get().rounds).toBe(rounds);
    }
  });

  it('a half-written or corrupt file gives a clear error and changes nothing; the next good save is read', async () => {
    const { file, ui, chat, watch, next } = setUp({ ui: { theme: 'light' }, chat: { rounds: 3 } });
    let failed = next();
    fs.writeFileSync(file, '{ "version": 2, "ui": { "theme": "da');
    const problem = await failed;
    expect(problem.kind).toBe('invalid');
    expect(problem).toMatchObject({ file });
    expect((problem as { message: string }).message).toMatch(
      /is not valid JSON .*The settings in force are the last good ones\.$/,
    );
    expect(ui.get()).toEqual({ theme: 'light' });
    expect(chat.get()).toEqual({ rounds: 3 });
    expect(watch.problem()).toEqual(problem);
    // Nothing was written over the person's half-edited file.
    expect(fs.readFileSync(file, 'utf8')).toBe('{ "version": 2, "ui": { "theme": "da');

    // A valid JSON document with one invalid value: nothing of it applies, not even the valid change beside it.
    failed = next();
    fs.writeFileSync(file, JSON.stringify({ version: 2, ui: { theme: 'dark' }, chat: { rounds: 0 } }));
    const invalid = await failed;
    expect(invalid).toMatchObject({ kind: 'invalid' });
    expect((invalid as { message: string }).message).toContain('chat.rounds');
    expect(ui.get()).toEqual({ theme: 'light' });
    expect(chat.get()).toEqual({ rounds: 3 });

    const fixed = next();
    saveByRename(file, { version: 2, ui: { theme: 'dark' }, chat: { rounds: 4 } });
    expect(await fixed).toEqual({ kind: 'reloaded', file, sections: ['ui', 'chat'] });
    expect(ui.get()).toEqual({ theme: 'dark' });
    expect(chat.get()).toEqual({ rounds: 4 });
    expect(watch.problem()).toBeNull();
  });

  it("the app's own writes tell no one again, and a change while it is corrupt is refused until it is fixed", async () => {
    const { file, ui, chat, seen, next } = setUp({ ui: { theme: 'light' } });
    ui.update(() => ({ theme: 'dark' }));
    // The app's own save is followed by a hand edit; only the hand edit is reported.
    const reloaded = next();
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), chat: { rounds: 2 } }));
    expect(await reloaded).toMatchObject({ kind: 'reloaded', sections: ['chat'] });
    expect(seen).toHaveLength(1);
    expect(chat.get().rounds).toBe(2);
    // While the file is corrupt, a change through the app is refused (it would have to guess what the file holds).
    const failed = next();
    fs.writeFileSync(file, 'not json');
    await failed;
    expect(() => ui.update(() => ({ theme: 'light' }))).toThrow(SettingsError);
    expect(fs.readFileSync(file, 'utf8')).toBe('not json');
  });

  it('stop() ends the watch: a later change is not read', async () => {
    const { file, chat, watch, seen } = setUp({ chat: { rounds: 3 } });
    watch.stop();
    // A second store watching the same file shows when the change was read by a watch that still runs.
    const otherStore = openSettingsStore(file);
    const otherChat = otherStore.section('chat', ChatSchema, ChatSchema.parse({}));
    const other = watchSettings(otherStore, { debounceMs: 20 });
    watches.push(other);
    other.start();
    const read = new Promise<void>((resolve) => other.onDidReload(() => resolve()));
    fs.writeFileSync(file, JSON.stringify({ version: 2, chat: { rounds: 9 } }));
    await read;
    expect(otherChat.get().rounds).toBe(9);
    expect(chat.get().rounds).toBe(3);
    expect(seen).toEqual([]);
  });
});
