import fs from 'node:fs';
import { z } from 'zod';
import { readFileIfExists, writeFileAtomic } from './atomic-file';
import { parseJsonOrUndefined } from '../../shared/json';

export const SECRETS_FILE_NAME = 'secrets.json';

/**
 * Secrets (API keys, MCP servers' env and header values). They never cross to the renderer and
 * never go into settings.json. Keys are namespaced by their owner, e.g. `mcp.Files.env.TOKEN`.
 */
export interface SecretStore {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  delete(key: string): void;
  /** The keys that start with `prefix`, for listing which secrets exist without reading them. */
  keys(prefix?: string): string[];
}

/** Turns secret values into stored text and back; the Electron host supplies one built on safeStorage. */
export interface SecretCipher {
  /** Names the protection in the file, so a file written by one host is not misread by another. */
  readonly kind: string;
  encrypt(plain: string): string;
  decrypt(stored: string): string;
}

/** No encryption: the file is only protected by its permissions (0600). For the CLI and browser mode. */
export const plainCipher: SecretCipher = { kind: 'plain', encrypt: (plain) => plain, decrypt: (stored) => stored };

const SecretsFileSchema = z.object({ protection: z.string(), values: z.record(z.string(), z.string()) });

/** Secrets in one file beside the settings, written atomically with owner-only permissions. */
export function openFileSecretStore(file: string, cipher: SecretCipher = plainCipher): SecretStore {
  const load = (): Record<string, string> => {
    const text = readFileIfExists(file);
    if (text === null) return {};
    const parsed = SecretsFileSchema.safeParse(parseJsonOrUndefined(text));
    if (!parsed.success) throw new Error(`The secrets file ${file} is damaged. It was left as it is; move it away to start without secrets.`);
    if (parsed.data.protection !== cipher.kind) {
      throw new Error(`The secrets file ${file} was written with "${parsed.data.protection}" protection; this host reads "${cipher.kind}".`);
    }
    return parsed.data.values;
  };
  let values = load();
  const save = (): void => {
    writeFileAtomic(file, `${JSON.stringify({ protection: cipher.kind, values }, null, 2)}\n`, 0o600);
    fs.chmodSync(file, 0o600);
  };
  return {
    get: (key) => (key in values ? cipher.decrypt(values[key] as string) : undefined),
    set(key, value) {
      values = { ...load(), [key]: cipher.encrypt(value) };
      save();
    },
    delete(key) {
      const current = load();
      if (!(key in current)) return;
      values = Object.fromEntries(Object.entries(current).filter(([name]) => name !== key));
      save();
    },
    keys: (prefix = '') => Object.keys(values).filter((key) => key.startsWith(prefix)).sort(),
  };
}
