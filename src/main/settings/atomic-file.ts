import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from '../storage/owner-only';

/**
 * Replaces a file's content so that a reader (or a crash) sees either the old or the new content,
 * never half of it: write a temporary file beside it, flush it, then rename it over the original.
 * The file is owner-only (0600) unless told otherwise, whatever the umask (docs/user/data.md).
 */
export function writeFileAtomic(file: string, content: string, mode = OWNER_ONLY_FILE): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: OWNER_ONLY_FOLDER });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  const descriptor = fs.openSync(temporary, 'w', mode);
  try {
    fs.fchmodSync(descriptor, mode);
    fs.writeFileSync(descriptor, content);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
  try {
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** The file's text, or null when it does not exist. */
export function readFileIfExists(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
