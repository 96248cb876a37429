import type { z } from 'zod';
import { canonicalJson } from '../../shared/canonical-json';
import { readFileIfExists, writeFileAtomic } from './atomic-file';
import { WorkbenchError } from '../errors';
import {
  migrateSettingsFile,
  SETTINGS_VERSION,
  SettingsMigrationProblem,
  type SettingsDocument,
  type SettingsMigrationOutcome,
} from './settings-migrations';

export const SETTINGS_FILE_NAME = 'settings.json';

/** The settings file cannot be read or a section of it is invalid. The file is left as it is. */
export class SettingsError extends WorkbenchError {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    // A person reads it where their change was refused (docs/user/approvals.md): a sentence, never an RPC name.
    super('unavailable', message);
    this.name = 'SettingsError';
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** One top-level key of the settings document, owned by one service. */
export interface SettingsSection<T> {
  /** The current value; the defaults when the file has no such section. */
  get(): T;
  /**
   * Re-reads the file, applies `change` to the section as it is on disk now (another process may
   * have changed it), validates the result, writes the whole document atomically (keeping every
   * other section as it is on disk now), then tells the listeners. Throws `SettingsError` and writes
   * nothing when the value is invalid or the file on disk has become unreadable or invalid.
   */
  update(change: (current: T) => T): T;
  onDidChange(listener: (value: T) => void): () => void;
}

/** The settings document: one JSON file (docs/user/data.md), split into sections. */
export interface SettingsStore {
  readonly file: string;
  /** When opening brought an older file up to this version: what happened (the host tells the person). */
  readonly migration: SettingsMigrationOutcome | null;
  /** Reads and validates a section; throws `SettingsError` naming the field when it is invalid. */
  section<Schema extends z.ZodType>(
    name: string,
    schema: Schema,
    defaults: z.output<Schema>,
  ): SettingsSection<z.output<Schema>>;
  /**
   * Reads the file again, as someone may have changed it by hand (docs/user/data.md, "Editing settings.json"). When
   * every section in it is valid, each section whose value changed takes it and tells its listeners; returns their
   * names. When the file cannot be read, parsed or migrated, or a section is invalid, nothing changes: the last good
   * settings stay in force and it throws `SettingsError` naming the field.
   */
  reload(): string[];
}

type Document = SettingsDocument;

/**
 * Opens the settings file. A file from an older version is migrated first (the old file kept as
 * `settings.v<N>.json`); a file from a newer version, or one that cannot be migrated, throws
 * `SettingsError` naming the field and is left as it is.
 */
export function openSettingsStore(file: string): SettingsStore {
  const opened = loadDocument(file);
  let document = opened.document;
  /** Each section's way to take a value from a document: parse first (throws), then commit (tells its listeners). */
  const sections: Array<readonly [name: string, take: (from: Document) => () => boolean]> = [];
  /** Takes every section's value from `from` when all of them are valid; throws `SettingsError` and changes nothing when not. */
  const adopt = (from: Document): string[] => {
    const commits = sections.map(([name, take]) => [name, take(from)] as const);
    document = from;
    return commits.filter(([, commit]) => commit()).map(([name]) => name);
  };
  return {
    file,
    migration: opened.migration,
    reload: () => adopt(loadDocument(file).document),
    section(name, schema, defaults) {
      type T = z.output<typeof schema>;
      const parse = (raw: unknown): T => {
        const result = schema.safeParse(raw);
        if (result.success) return result.data;
        const problems = result.error.issues
          .map((issue) => `${[name, ...issue.path.map(String)].join('.')}: ${issue.message}`)
          .join('; ');
        throw new SettingsError(
          file,
          `The settings file ${file} has an invalid value: ${problems}. It was left as it is; correct it or move it away.`,
        );
      };
      let value: T = name in document ? parse(document[name]) : defaults;
      const listeners = new Set<(value: T) => void>();
      const tell = (next: T): void => {
        for (const listener of [...listeners]) listener(next);
      };
      sections.push([
        name,
        (from) => {
          const next: T = Object.hasOwn(from, name) ? parse(from[name]) : defaults;
          return () => {
            if (canonicalJson(next) === canonicalJson(value)) return false;
            value = next;
            tell(next);
            return true;
          };
        },
      ]);
      return {
        get: () => value,
        update(change) {
          // The file may have changed since it was read (the CLI, another window): the change applies
          // to the section as it is on disk now, never to this process's older copy of it.
          const onDisk = loadDocument(file).document;
          const fresh: T = Object.hasOwn(onDisk, name) ? parse(onDisk[name]) : defaults;
          const next = parse(change(fresh));
          document = { ...onDisk, version: SETTINGS_VERSION, [name]: next };
          writeFileAtomic(file, `${JSON.stringify(document, null, 2)}\n`);
          value = next;
          tell(next);
          return next;
        },
        onDidChange(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      };
    },
  };
}

/** The document on disk now, migrated (and the file rewritten) when it is older than this version. */
function loadDocument(file: string): { document: Document; migration: SettingsMigrationOutcome | null } {
  const text = readFileIfExists(file);
  if (text === null || text.trim() === '') return { document: {}, migration: null };
  const document = parseDocument(file, text);
  try {
    const migrated = migrateSettingsFile(file, text, document);
    return migrated ? { document: migrated.document, migration: migrated.outcome } : { document, migration: null };
  } catch (error) {
    if (!(error instanceof SettingsMigrationProblem)) throw error;
    throw new SettingsError(
      file,
      `The settings file ${file} cannot be used: ${error.message}. It was left as it is; correct it or move it away.`,
      {
        cause: error,
      },
    );
  }
}

function parseDocument(file: string, text: string): Document {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new SettingsError(
      file,
      `The settings file ${file} is not valid JSON (${(error as Error).message}). It was left as it is; correct it or move it away.`,
      { cause: error },
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new SettingsError(
      file,
      `The settings file ${file} must hold a JSON object. It was left as it is; correct it or move it away.`,
    );
  }
  return parsed as Document;
}
