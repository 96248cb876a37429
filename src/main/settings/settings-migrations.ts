import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { defaultMcpServers } from './default-servers';

/**
 * The version of the settings document this build writes. A file without `version` is version 1.
 *  - 2: a server's trust is `mcpServers.<name>.trusted` only (version 1 also had
 *       `approvals.servers.<name>.trustAnnotations`, which the approval engine read).
 */
export const SETTINGS_VERSION = 2;

export type SettingsDocument = Record<string, unknown>;

/** What opening the file did to it: the versions, where the old file was kept, and what a person should know. */
export interface SettingsMigrationOutcome {
  from: number;
  to: number;
  /** The old file, byte for byte (`settings.v1.json` beside it). */
  backup: string;
  notes: string[];
}

/** What a host prints once after a migration: one line, then the notes. */
export function describeSettingsMigration(outcome: SettingsMigrationOutcome): string[] {
  return [
    `Settings were brought from version ${outcome.from} to ${outcome.to}; the old file is kept as ${outcome.backup}.`,
    ...outcome.notes,
  ];
}

/** The document cannot be migrated as it is; the message names the field. Nothing is written then. */
export class SettingsMigrationProblem extends Error {}

interface Migration {
  /** The version it reads; it writes `from + 1`. */
  from: number;
  migrate(document: SettingsDocument, context: { dataDir: string }, notes: string[]): SettingsDocument;
}

const MIGRATIONS: readonly Migration[] = [{ from: 1, migrate: moveServerTrust }];

/** The document's version; throws `SettingsMigrationProblem` for one that is not a whole number ≥ 1 or is newer than this build. */
export function versionOf(document: SettingsDocument): number {
  const version = document.version ?? 1;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new SettingsMigrationProblem(`version: must be a whole number from 1 (it is ${JSON.stringify(version)})`);
  }
  if (version > SETTINGS_VERSION) {
    throw new SettingsMigrationProblem(
      `version: the file was written by a newer version of AI Workbench (settings version ${version}; this one reads up to ${SETTINGS_VERSION})`,
    );
  }
  return version;
}

/** The document brought up to SETTINGS_VERSION, without touching any file. Throws `SettingsMigrationProblem`. */
export function migrateDocument(
  document: SettingsDocument,
  context: { dataDir: string },
): { document: SettingsDocument; from: number; notes: string[] } {
  const from = versionOf(document);
  const notes: string[] = [];
  let current = structuredClone(document);
  for (const migration of MIGRATIONS) {
    if (migration.from < from) continue;
    const { version: _old, ...rest } = migration.migrate(current, context, notes);
    current = { version: migration.from + 1, ...rest };
  }
  return { document: current, from, notes };
}

/**
 * Brings an old settings file up to SETTINGS_VERSION when that changes it (null when not): first its text is kept as it is in
 * `settings.v<old>.json` beside it (a backup that is already there with other content is not
 * replaced: the new one gets a time in its name), then the migrated document replaces the file
 * atomically. A crash in between leaves the old file, which is migrated again at the next start.
 */
export function migrateSettingsFile(
  file: string,
  text: string,
  document: SettingsDocument,
): { document: SettingsDocument; outcome: SettingsMigrationOutcome } | null {
  if (versionOf(document) === SETTINGS_VERSION) return null;
  const migrated = migrateDocument(document, { dataDir: path.dirname(file) });
  // Nothing but the number would change: the file stays as it is (the next change of a section stamps the version).
  if (sameContent(migrated.document, document)) return null;
  const backup = writeBackup(file, text, migrated.from);
  writeFileAtomic(file, `${JSON.stringify(migrated.document, null, 2)}\n`);
  return {
    document: migrated.document,
    outcome: { from: migrated.from, to: SETTINGS_VERSION, backup, notes: migrated.notes },
  };
}

function sameContent(left: SettingsDocument, right: SettingsDocument): boolean {
  const { version: _left, ...leftRest } = left;
  const { version: _right, ...rightRest } = right;
  return JSON.stringify(leftRest) === JSON.stringify(rightRest);
}

function writeBackup(file: string, text: string, version: number): string {
  const extension = path.extname(file);
  const base = path.join(path.dirname(file), `${path.basename(file, extension)}.v${version}`);
  const plain = `${base}${extension}`;
  const existing = fs.existsSync(plain) ? fs.readFileSync(plain, 'utf8') : null;
  if (existing === text) return plain;
  const backup = existing === null ? plain : `${base}.${new Date().toISOString().replace(/[:.]/g, '-')}${extension}`;
  writeFileAtomic(backup, text);
  return backup;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Version 1 → 2: trust moves to `mcpServers.<name>.trusted`. Every decision stays the same: version 1
 * decided by `trustAnnotations` alone, so a server is trusted afterwards exactly when its
 * `trustAnnotations` was true. A server marked trusted only in its MCP settings (a flag the approval
 * engine never read) is unmarked, with a note, rather than having its read-only tools start running
 * without asking. Trust of a server that is not configured any more is dropped, with a note (the backup keeps it).
 */
function moveServerTrust(
  document: SettingsDocument,
  { dataDir }: { dataDir: string },
  notes: string[],
): SettingsDocument {
  const approvals = document.approvals;
  const approvalServers = isObject(approvals) && isObject(approvals.servers) ? approvals.servers : {};
  const trustedByPolicy = new Set<string>();
  for (const [name, settings] of Object.entries(approvalServers)) {
    if (!isObject(settings) || !Object.hasOwn(settings, 'trustAnnotations')) continue;
    const trust = settings.trustAnnotations;
    if (typeof trust !== 'boolean') {
      throw new SettingsMigrationProblem(
        `approvals.servers.${name}.trustAnnotations: must be true or false to be moved to mcpServers.${name}.trusted`,
      );
    }
    if (trust) trustedByPolicy.add(name);
  }
  const mentioned = Object.values(approvalServers).some(
    (settings) => isObject(settings) && Object.hasOwn(settings, 'trustAnnotations'),
  );
  let mcpServers = document.mcpServers;
  if (mcpServers !== undefined && !isObject(mcpServers)) {
    throw new SettingsMigrationProblem(
      'mcpServers: must be an object of servers, so that their trust can be moved into it',
    );
  }
  // Without the section the app ran with its default servers: those are what trust refers to.
  if (mcpServers === undefined && trustedByPolicy.size > 0)
    mcpServers = defaultMcpServers(dataDir) as Record<string, unknown>;
  if (!mentioned && !Object.values(mcpServers ?? {}).some((server) => isObject(server) && server.trusted === true))
    return document;

  const servers: Record<string, unknown> = { ...(mcpServers ?? {}) };
  for (const [name, server] of Object.entries(servers)) {
    if (!isObject(server)) continue;
    if (trustedByPolicy.has(name)) {
      servers[name] = { ...server, trusted: true };
    } else if (server.trusted === true) {
      servers[name] = { ...server, trusted: false };
      notes.push(
        `The MCP server '${name}' was marked trusted in its own settings, but the approval policy did not trust its annotations, so nothing ran because of them. It is not trusted now; mark it trusted again to let its read-only tools run without asking.`,
      );
    }
  }
  for (const name of trustedByPolicy) {
    if (!isObject(servers[name]))
      notes.push(`The trust of '${name}' was dropped: no MCP server has that name any more.`);
  }
  const next: SettingsDocument = { ...document };
  if (mcpServers !== undefined) next.mcpServers = servers;
  if (isObject(approvals) && isObject(approvals.servers)) {
    const kept: Record<string, unknown> = {};
    for (const [name, settings] of Object.entries(approvals.servers)) {
      if (!isObject(settings)) {
        kept[name] = settings;
        continue;
      }
      const { trustAnnotations: _moved, ...rest } = settings;
      if (Object.keys(rest).length > 0) kept[name] = rest;
    }
    next.approvals = { ...approvals, servers: kept };
  }
  return next;
}
