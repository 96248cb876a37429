// Owner-only data on POSIX (docs/user/data.md#who-can-read-your-data): real files, real SQLite, the real services,
// under a umask that would leave everything world-readable, so every mode below is one the code set itself.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createServices, type Services } from '../services';
import { writeFileAtomic } from '../settings/atomic-file';
import { openDatabase } from './database';
import { describeDataFolderRepair, secureDataFolder } from './owner-only';
import { titleUnless } from '../testing/skip-reason';

const posix = process.platform !== 'win32';
const modeOf = (target: string): number => fs.statSync(target).mode & 0o777;

let root: string;
let dataDir: string;
let umask: number;
const open: Services[] = [];

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-owner-'));
  dataDir = path.join(root, 'data');
  umask = process.umask(0o000);
});
afterEach(async () => {
  process.umask(umask);
  for (const services of open.splice(0)) {
    await services.conversations.dispose();
    services.close();
  }
  fs.rmSync(root, { recursive: true, force: true });
});

function start(): Services {
  const services = createServices({ dataDir, host: 'cli', version: '0.0.0-test', managedPolicyFile: null });
  open.push(services);
  return services;
}

describe.skipIf(!posix)(titleUnless('owner-only data on POSIX', !posix, 'Windows has no POSIX file modes'), () => {
  it('a fresh start makes the folder 0700 and the database, its WAL and SHM, settings and secrets 0600, with nothing to tell', async () => {
    const services = start();
    // Something in each file: a chat (database and WAL), a provider with a key (settings and secrets).
    services.chats.create({ title: 'sk-secret-in-a-chat' });
    services.providers.add({
      kind: 'openai-compatible',
      id: 'local',
      baseURL: 'http://127.0.0.1:1/v1',
      apiKey: 'sk-test',
    });
    expect(modeOf(dataDir)).toBe(0o700);
    for (const name of ['workbench.db', 'workbench.db-wal', 'workbench.db-shm', 'settings.json', 'secrets.json']) {
      expect(fs.existsSync(path.join(dataDir, name)), name).toBe(true);
      expect(modeOf(path.join(dataDir, name)), name).toBe(0o600);
    }
    expect(services.dataFolderRepair.tightened).toEqual([]);
    expect(describeDataFolderRepair(services.dataFolderRepair)).toBeNull();
  });

  it('a start on a 0755 folder with a 0644 database, WAL, SHM and settings tightens them and says so; files not ours are left alone', () => {
    start().chats.create({ title: 'before' });
    open.pop()?.close();
    const ours = ['workbench.db', 'settings.json', 'settings.v1.json'];
    fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}\n');
    fs.writeFileSync(path.join(dataDir, 'settings.v1.json'), '{}\n');
    // An older version's leftovers: a WAL and SHM of the database, 0644 as SQLite made them.
    fs.writeFileSync(path.join(dataDir, 'workbench.db-wal'), '');
    fs.writeFileSync(path.join(dataDir, 'workbench.db-shm'), '');
    ours.push('workbench.db-wal', 'workbench.db-shm');
    fs.writeFileSync(path.join(dataDir, 'notes.txt'), 'mine, not the app’s');
    fs.chmodSync(dataDir, 0o755);
    for (const name of [...ours, 'notes.txt']) fs.chmodSync(path.join(dataDir, name), 0o644);

    const services = start();
    expect(modeOf(dataDir)).toBe(0o700);
    for (const name of ours) expect(modeOf(path.join(dataDir, name)), name).toBe(0o600);
    expect(modeOf(path.join(dataDir, 'notes.txt'))).toBe(0o644);
    expect(services.chats.list().map((chat) => chat.title)).toEqual(['before']);
    const notice = describeDataFolderRepair(services.dataFolderRepair);
    expect(notice).toContain(`Other users of this computer could read AI Workbench's data folder ${dataDir}`);
    expect(notice).toContain(`${dataDir}: 0755 → 0700`);
    expect(notice).toContain(`${path.join(dataDir, 'workbench.db')}: 0644 → 0600`);
    expect(notice).not.toContain('notes.txt');
    // Told once: the next start finds nothing to tighten.
    open.pop()?.close();
    expect(describeDataFolderRepair(start().dataFolderRepair)).toBeNull();
  });

  it('tightens a folder that only grants traversal (0711) or group read (0750), and never loosens a stricter one', () => {
    for (const [found, expected] of [
      [0o711, 0o700],
      [0o750, 0o700],
      [0o500, 0o500],
    ] as const) {
      const folder = path.join(root, `folder-${found.toString(8)}`);
      fs.mkdirSync(folder);
      fs.chmodSync(folder, found);
      const repair = secureDataFolder(folder, 'linux');
      expect(modeOf(folder)).toBe(expected);
      expect(repair.tightened.length).toBe(found === expected ? 0 : 1);
      fs.chmodSync(folder, 0o700);
    }
  });

  it('a file of ours that another process removes while the folder is read (a rollback journal) is passed over', () => {
    fs.mkdirSync(dataDir, { mode: 0o755 });
    fs.writeFileSync(path.join(dataDir, 'settings.json'), '{}', { mode: 0o644 });
    fs.mkdirSync(path.join(dataDir, 'browser-open'), { mode: 0o755 });
    // What a second instance saw: a listing that names a journal and a folder which are gone by the time they are read.
    const read = fs.readdirSync.bind(fs) as (folder: string, options: { withFileTypes: true }) => fs.Dirent[];
    const gone = (name: string, kind: 'file' | 'folder'): fs.Dirent =>
      Object.assign(new fs.Dirent(), {
        name,
        parentPath: dataDir,
        isFile: () => kind === 'file',
        isDirectory: () => kind === 'folder',
      });
    const listing = vi.spyOn(fs, 'readdirSync').mockImplementation(((
      folder: string,
      options: { withFileTypes: true },
    ) => {
      const entries = read(folder, options);
      return folder === dataDir
        ? [...entries, gone('workbench.db-journal', 'file'), gone('window-state.json.12.34.tmp', 'file')]
        : entries;
    }) as unknown as typeof fs.readdirSync);
    try {
      const repair = secureDataFolder(dataDir, 'linux');
      expect(repair.tightened.map((item) => path.basename(item.path)).sort()).toEqual([
        'browser-open',
        'data',
        'settings.json',
      ]);
    } finally {
      listing.mockRestore();
    }
    expect(modeOf(path.join(dataDir, 'settings.json'))).toBe(0o600);
  });

  it('SQLite creates the WAL and SHM with the database file’s 0600, even under umask 0', () => {
    const file = path.join(root, 'nested', 'workbench.db');
    const db = openDatabase(file);
    db.prepare('INSERT INTO chats (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)').run('a', 'x', 1, 2);
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-wal`)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
      expect(modeOf(path.dirname(file))).toBe(0o700);
    } finally {
      db.close();
    }
  });

  it('settings written atomically are 0600 under umask 0, and so is an audit export', async () => {
    const settingsFile = path.join(root, 'conf', 'settings.json');
    writeFileAtomic(settingsFile, '{}\n');
    expect(modeOf(settingsFile)).toBe(0o600);
    expect(modeOf(path.dirname(settingsFile))).toBe(0o700);

    const services = start();
    const out = path.join(root, 'export.jsonl');
    await services.audit.export({ format: 'jsonl', path: out });
    expect(modeOf(out)).toBe(0o600);
  });
});

describe('the notice', () => {
  it('is null when nothing changed, and on Windows nothing is tightened at all', () => {
    expect(describeDataFolderRepair(null)).toBeNull();
    expect(describeDataFolderRepair({ folder: '/x', tightened: [] })).toBeNull();
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'aiwb-owner-win-'));
    try {
      if (posix) fs.chmodSync(folder, 0o755);
      expect(secureDataFolder(folder, 'win32').tightened).toEqual([]);
      if (posix) expect(modeOf(folder)).toBe(0o755);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
