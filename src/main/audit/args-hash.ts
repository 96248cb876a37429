import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { OWNER_ONLY_FILE, OWNER_ONLY_FOLDER } from '../storage/owner-only';

/**
 * The keyed hash of a call's arguments (docs/dev/audit-durability.md, "The arguments hash"): HMAC-SHA-256 under a
 * per-install key, so a row's hash proves which arguments a call had to whoever holds the key, and tells nobody
 * else anything — not even a short password the stored arguments show as `[REDACTED]`.
 *
 * The key is 32 random bytes in its own owner-only file (0600) in the data folder, beside `secrets.json`. Not in
 * `secrets.json` itself: the desktop app encrypts those with the OS keychain, which the CLI cannot open, and rows
 * the CLI writes must hash alike.
 */
export const ARGS_KEY_FILE_NAME = 'audit-args-key';

/** Marks a keyed hash; a bare 64-digit hex hash is the unkeyed SHA-256 of rows written before keys existed. */
export const KEYED_HASH_PREFIX = 'hmac-sha256:';

const KEY_TEXT = /^[0-9a-f]{64}$/;

/**
 * The install's key: read from the data folder, or made there when there is none. Two processes that make it at
 * once (the app and the CLI) end up with the same key: it is put in place with an exclusive link, never overwritten.
 * Throws, naming the file, when it exists but is not a key — it is never replaced, since the rows hashed under it
 * could no longer be compared.
 */
export function loadArgsHashKey(dataDir: string): Buffer {
  const file = path.join(dataDir, ARGS_KEY_FILE_NAME);
  const existing = readKey(file);
  if (existing) return existing;
  fs.mkdirSync(dataDir, { recursive: true, mode: OWNER_ONLY_FOLDER });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const descriptor = fs.openSync(temporary, 'wx', OWNER_ONLY_FILE);
  try {
    fs.fchmodSync(descriptor, OWNER_ONLY_FILE);
    fs.writeFileSync(descriptor, `${randomBytes(32).toString('hex')}\n`);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
  try {
    fs.linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    fs.rmSync(temporary, { force: true });
  }
  const made = readKey(file);
  if (!made) throw new Error(`The audit key ${file} could not be made.`);
  return made;
}

function readKey(file: string): Buffer | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!KEY_TEXT.test(text)) {
    throw new Error(
      `The audit key ${file} is damaged (it is not 64 hex digits). It was left as it is: restore it from a backup, or move it away to start a new key (older rows then keep hashes nobody can check).`,
    );
  }
  // Owner-only whatever the umask or a copy did to it.
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, OWNER_ONLY_FILE);
  return Buffer.from(text, 'hex');
}

/** `hmac-sha256:<64 hex digits>` of the canonical JSON of the arguments. */
export function keyedArgsHash(key: Buffer, canonicalArgs: string): string {
  return `${KEYED_HASH_PREFIX}${createHmac('sha256', key).update(canonicalArgs).digest('hex')}`;
}
