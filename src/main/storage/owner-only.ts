import fs from 'node:fs';
import path from 'node:path';

/**
 * Owner-only permissions for the data folder (docs/user/data.md, "Who can read your data"). Chats keep the
 * model's raw arguments (an API key pasted in a message lands in the database and its WAL), so on POSIX the
 * folder is 0700 and every file AI Workbench writes into it 0600. Modes are set explicitly (mkdir's mode,
 * then chmod), never left to the umask. Windows has no such modes: its user profile folder is private already.
 */
export const OWNER_ONLY_FOLDER = 0o700;
export const OWNER_ONLY_FILE = 0o600;

/** One path whose mode was tightened at start. */
export interface TightenedPath {
  readonly path: string;
  /** The mode found, e.g. 0o755. */
  readonly from: number;
  readonly to: number;
}

/** What `secureDataFolder` changed; empty when everything was owner-only already. */
export interface DataFolderRepair {
  readonly folder: string;
  readonly tightened: readonly TightenedPath[];
}

/**
 * The files AI Workbench itself writes at the top of the data folder, the only ones tightened there: the data
 * folder may be WORKBENCH_HOME=~, whose other files are none of our business. The database (and the WAL, SHM
 * and rollback journal SQLite keeps beside it), the settings and their migration backups, the secrets, the
 * window state, and the temporary files of an atomic write that a crash left behind.
 */
const OWN_FILES =
  /^(workbench\.db(-wal|-shm|-journal)?|settings(\.v\d+(\.[\w-]+)?)?\.json|secrets\.json|window-state\.json|(settings|secrets|window-state)\.json\.\d+\.\d+\.tmp)$/;
/** Folders of ours inside the data folder whose content is ours too. */
const OWN_FOLDERS = ['browser-open'];

/**
 * Creates the data folder 0700, or tightens it (and the files of ours in it, see OWN_FILES) when another user
 * could read it. Returns what changed, for the hosts to tell the person (`describeDataFolderRepair`).
 */
export function secureDataFolder(folder: string, platform: NodeJS.Platform = process.platform): DataFolderRepair {
  const tightened: TightenedPath[] = [];
  if (platform === 'win32') {
    fs.mkdirSync(folder, { recursive: true });
    return { folder, tightened };
  }
  ensureOwnerOnlyFolder(folder, tightened);
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isFile() && OWN_FILES.test(entry.name)) tightenListed(full, OWNER_ONLY_FILE, tightened);
    else if (entry.isDirectory() && OWN_FOLDERS.includes(entry.name)) {
      tightenListed(full, OWNER_ONLY_FOLDER, tightened);
      for (const inner of listedFiles(full)) tightenListed(path.join(full, inner), OWNER_ONLY_FILE, tightened);
    }
  }
  return { folder, tightened };
}

/**
 * `tighten` for what a listing named: another process of ours on the same folder (a second browser mode, the CLI)
 * may remove it meanwhile — SQLite's rollback journal lives for one transaction — and a file that is gone needs
 * no tightening.
 */
function tightenListed(target: string, mode: number, tightened: TightenedPath[]): void {
  try {
    tighten(target, mode, tightened);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function listedFiles(folder: string): string[] {
  try {
    return fs
      .readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return [];
  }
}

/** Creates a folder (and its missing parents) 0700, or tightens it when it is looser. */
export function ensureOwnerOnlyFolder(folder: string, tightened: TightenedPath[] = []): void {
  fs.mkdirSync(folder, { recursive: true, mode: OWNER_ONLY_FOLDER });
  tighten(folder, OWNER_ONLY_FOLDER, tightened);
}

/**
 * Creates an empty file 0600 when it does not exist yet, so that what then opens it (SQLite) finds it
 * owner-only; SQLite gives its WAL, SHM and journal the database file's mode.
 */
export function createOwnerOnlyFile(file: string): void {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, 'wx', OWNER_ONLY_FILE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fs.fchmodSync(descriptor, OWNER_ONLY_FILE);
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Removes group and other bits that are set (never adds any); records the change. */
function tighten(target: string, mode: number, tightened: TightenedPath[]): void {
  const found = fs.statSync(target).mode & 0o777;
  if ((found & 0o077) === 0) return;
  fs.chmodSync(target, mode);
  tightened.push({ path: target, from: found, to: mode });
}

/** The notice the hosts show (stderr for the CLI and browser mode, a message in the app); null when nothing changed. */
export function describeDataFolderRepair(repair: DataFolderRepair | null): string | null {
  if (!repair || repair.tightened.length === 0) return null;
  const octal = (mode: number): string => `0${mode.toString(8)}`;
  const list = repair.tightened.map((item) => `  ${item.path}: ${octal(item.from)} → ${octal(item.to)}`).join('\n');
  return (
    `Other users of this computer could read AI Workbench's data folder ${repair.folder}, which holds your chats ` +
    `and their tool arguments. It is now readable by you only:\n${list}`
  );
}
