import fs from 'node:fs';
import path from 'node:path';
import type { SettingsReload } from '../../shared/app';
import { SettingsError, type SettingsStore } from './settings-store';

/** How long the file must stay quiet before it is read again: an editor's save is several writes and a rename. */
export const SETTINGS_RELOAD_DEBOUNCE_MS = 200;

export interface SettingsWatch {
  /** Starts watching (idempotent). The long-running hosts call it once they are up. */
  start(): void;
  /** Stops watching; a reload already waiting for its quiet time does not happen. */
  stop(): void;
  /** The last reload that failed, until one succeeds (null while the file in force is the one on disk). */
  problem(): Extract<SettingsReload, { kind: 'invalid' }> | null;
  onDidReload(listener: (reload: SettingsReload) => void): () => void;
}

/**
 * Watches settings.json while the app runs (docs/user/data.md, "Editing settings.json"): a change made by hand or by
 * another program is read again once the file has been quiet for `debounceMs`, and every service takes the sections
 * that changed through their `onDidChange` (a server's changed command reads as a changed launch spec at once).
 *
 * The folder is watched, not the file: an editor that saves by writing a temporary file and renaming it over
 * settings.json (as this app does) replaces the file's inode, which a watch on the file itself would lose.
 * A file that is half-written, not JSON, or holds an invalid value changes nothing: the last good settings stay in
 * force and `onDidReload` says why (`invalid`); the next good save is read as usual. A write of this app's own finds
 * its values already in force and tells no one.
 */
export function watchSettings(store: SettingsStore, options: { debounceMs?: number } = {}): SettingsWatch {
  const debounceMs = options.debounceMs ?? SETTINGS_RELOAD_DEBOUNCE_MS;
  const folder = path.dirname(store.file);
  const name = path.basename(store.file);
  const listeners = new Set<(reload: SettingsReload) => void>();
  let watcher: fs.FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let problem: Extract<SettingsReload, { kind: 'invalid' }> | null = null;

  const tell = (reload: SettingsReload): void => {
    for (const listener of [...listeners]) listener(reload);
  };
  const reload = (): void => {
    timer = undefined;
    let sections: string[];
    try {
      sections = store.reload();
    } catch (error) {
      const message =
        error instanceof SettingsError
          ? `${error.message} The settings in force are the last good ones.`
          : `The settings file ${store.file} cannot be read again (${(error as Error).message}). The settings in force are the last good ones.`;
      if (problem?.message === message) return;
      problem = { kind: 'invalid', file: store.file, message };
      tell(problem);
      return;
    }
    if (sections.length === 0 && problem === null) return;
    problem = null;
    tell({ kind: 'reloaded', file: store.file, sections });
  };
  const schedule = (): void => {
    clearTimeout(timer);
    timer = setTimeout(reload, debounceMs);
    timer.unref();
  };

  return {
    start() {
      if (watcher) return;
      fs.mkdirSync(folder, { recursive: true });
      watcher = fs.watch(folder, { persistent: false }, (_event, changed) => {
        // Some platforms do not name the file; then any change in the folder may be it.
        if (changed === null || changed === name) schedule();
      });
      watcher.on('error', () => {
        // The folder went away (removed under a running app): nothing is left to watch; the settings in force stay.
        watcher?.close();
      });
    },
    stop() {
      clearTimeout(timer);
      timer = undefined;
      watcher?.close();
      watcher = undefined;
    },
    problem: () => problem,
    onDidReload(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
