import fs from 'node:fs';
import { z } from 'zod';
import { parseJsonOrUndefined } from '../../shared/json';
import { WorkbenchError } from '../errors';
import { readFileIfExists, writeFileAtomic } from './atomic-file';

export const SECRETS_FILE_NAME = 'secrets.json';

/**
 * Secrets (API keys, MCP servers' env and header values). They never cross to the renderer and
 * never go into settings.json. Keys are namespaced by their owner, e.g. `mcp.Files.env.TOKEN`.
 */
export interface SecretStore {
  /**
   * The value, or undefined when there is none. Throws `unavailable` when the value exists but
   * was protected by a host this one cannot decrypt (the desktop app's OS keychain, read from the CLI).
   */
  get(key: string): string | undefined;
  has(key: string): boolean;
  set(key: string, value: string): void;
  delete(key: string): void;
  /** The keys that start with `prefix`, for listing which secrets exist without reading them. */
  keys(prefix?: string): string[];
  /** How this host protects what it writes (`plain`, `electron-safe-storage`). */
  readonly protection: string;
}

/** Turns secret values into stored text and back; the Electron host supplies one built on safeStorage. */
export interface SecretCipher {
  /** Stored beside every value, so a value written by one host is never misread by another. */
  readonly kind: string;
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

/** No encryption: the file is only protected by its permissions (0600). For the CLI and browser mode. */
export const plainCipher: SecretCipher = { kind: 'plain', encrypt: (plain) => plain, decrypt: (stored) => stored };

const EntrySchema = z.object({ protection: z.string(), value: z.string() });
const SecretsFileSchema = z.object({ version: z.literal(1), entries: z.record(z.string(), EntrySchema) });
type Entries = Record<string, z.infer<typeof EntrySchema>>;

/**
 * Secrets in one file beside the settings, written atomically with owner-only permissions. Each value
 * records how it is protected; this host writes with `ciphers[0]` and reads every kind it has a cipher for.
 */
export function openFileSecretStore(file: string, ciphers: readonly SecretCipher[] = [plainCipher]): SecretStore {
  const writer = ciphers[0] ?? plainCipher;
  const load = (): Entries => {
    const text = readFileIfExists(file);
    if (text === null) return {};
    const parsed = SecretsFileSchema.safeParse(parseJsonOrUndefined(text));
    if (!parsed.success)
      throw new Error(
        `The secrets file ${file} is damaged. It was left as it is; move it away to start without secrets.`,
      );
    return parsed.data.entries;
  };
  let entries = load();
  const save = (next: Entries): void => {
    writeFileAtomic(file, `${JSON.stringify({ version: 1, entries: next }, null, 2)}\n`, 0o600);
    fs.chmodSync(file, 0o600);
    entries = next;
  };
  return {
    protection: writer.kind,
    get(key) {
      const entry = entries[key];
      if (!entry) return undefined;
      const cipher = ciphers.find((candidate) => candidate.kind === entry.protection);
      if (!cipher) {
        throw new WorkbenchError(
          'unavailable',
          `The secret ${key} was saved with "${entry.protection}" protection, which this ${writer.kind === 'plain' ? 'browser-mode or CLI session' : 'app'} cannot read. Set it again here.`,
          { key, protection: entry.protection },
        );
      }
      return cipher.decrypt(entry.value);
    },
    has: (key) => key in entries,
    set(key, value) {
      save({ ...load(), [key]: { protection: writer.kind, value: writer.encrypt(value) } });
    },
    delete(key) {
      const current = load();
      if (!(key in current)) return;
      save(Object.fromEntries(Object.entries(current).filter(([name]) => name !== key)));
    },
    keys: (prefix = '') =>
      Object.keys(entries)
        .filter((key) => key.startsWith(prefix))
        .sort(),
  };
}
